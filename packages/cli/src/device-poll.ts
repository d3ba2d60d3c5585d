// The machine's half of device authorisation (spec: POST /v1/auth/device/token):
// poll every `interval` seconds until a person decides. `authorization_pending`
// keeps polling; `slow_down` adds 5 s (or takes the interval the answer names);
// `access_denied` and `expired_token` end the wait with a clear sentence. A
// passing network or server failure is retried a few times at the same pace.
// Pure over its deps (poll, sleep, clock), so the back-off is unit-tested.
import type { DevicePoll, DeviceToken } from './api-client.js';
import { ApiError, CliError, passingFailure } from './errors.js';

export const SLOW_DOWN_STEP_SECONDS = 5;
export const DEFAULT_INTERVAL_SECONDS = 5;
/** Consecutive network or 5xx failures tolerated before giving up. */
export const MAX_TRANSIENT_FAILURES = 5;

export interface PollDeps {
  poll: () => Promise<DevicePoll>;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Called before each wait with the seconds until the code expires. */
  onWait?: (secondsLeft: number, intervalSeconds: number) => void;
}

export const deniedError = () =>
  new CliError('login was denied: the person who opened the link refused this device', undefined, 'Nothing was stored. Run `floe login` again to ask once more.');

export const expiredError = () =>
  new CliError('login code expired before anyone approved it', undefined, 'Nothing was stored. Run `floe login` again for a new code.');

/** The pace after a refusal: `slow_down` grows it (by the answer's `interval` when given), anything else keeps it. */
export function nextInterval(current: number, code: string, answered?: unknown): number {
  if (code !== 'slow_down') return current;
  if (typeof answered === 'number' && Number.isFinite(answered) && answered > 0) return Math.max(answered, current);
  return current + SLOW_DOWN_STEP_SECONDS;
}

const positive = (n: unknown, fallback: number) => (typeof n === 'number' && Number.isFinite(n) && n > 0 ? n : fallback);

/** Polls until the login is approved (the key), denied or expired (a CliError), or Floe keeps failing. */
export async function waitForApproval(plan: { interval?: number; expires_in?: number }, d: PollDeps): Promise<DeviceToken> {
  let interval = positive(plan.interval, DEFAULT_INTERVAL_SECONDS);
  const deadline = d.now() + positive(plan.expires_in, 900) * 1000;
  let failures = 0;
  for (;;) {
    const left = Math.ceil((deadline - d.now()) / 1000);
    if (left <= 0) throw expiredError();
    d.onWait?.(left, interval);
    await d.sleep(interval * 1000);
    let answer: DevicePoll;
    try {
      answer = await d.poll();
    } catch (err) {
      failures += 1;
      if (!passingFailure(err) || failures >= MAX_TRANSIENT_FAILURES) throw err;
      if (err instanceof ApiError) interval = Math.max(interval, positive(err.envelope.retry_after_seconds, interval));
      continue;
    }
    failures = 0;
    if (answer.kind === 'token') return answer.token;
    const { code } = answer.error;
    switch (code) {
      case 'authorization_pending':
        continue;
      case 'slow_down':
        interval = nextInterval(interval, code, answer.error.envelope.interval);
        continue;
      case 'access_denied':
        throw deniedError();
      case 'expired_token':
        throw expiredError();
      default:
        throw answer.error;
    }
  }
}
