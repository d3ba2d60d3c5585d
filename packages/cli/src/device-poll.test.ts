import type { DevicePoll, DeviceToken } from './api-client';
import { nextInterval, waitForApproval, MAX_TRANSIENT_FAILURES } from './device-poll';
import { ApiError, CliError, NetworkError } from './errors';

const token = { api_key: 'al_live_k_s', key_id: 'k', label: 'host', principal_id: 'p' } as DeviceToken;
const refused = (code: string, extra: Record<string, unknown> = {}, status = 400): DevicePoll =>
  ({ kind: 'refused', error: new ApiError(status, { code, message: code, ...extra }, 'u') });

/** A fake clock: sleep advances it; each poll answers the next scripted outcome (an Error is thrown). */
function script(answers: Array<DevicePoll | Error>) {
  let t = 0;
  const waits: number[] = [];
  const deps = {
    now: () => t,
    sleep: async (ms: number) => { waits.push(ms / 1000); t += ms; },
    poll: async () => {
      const next = answers.shift();
      if (!next) throw new Error('polled more than scripted');
      if (next instanceof Error) throw next;
      return next;
    },
  };
  return { deps, waits };
}

test('authorization_pending keeps polling at the interval until the key arrives', async () => {
  const { deps, waits } = script([refused('authorization_pending'), refused('authorization_pending'), { kind: 'token', token }]);
  await expect(waitForApproval({ interval: 5, expires_in: 900 }, deps)).resolves.toBe(token);
  expect(waits).toEqual([5, 5, 5]);
});

test('slow_down adds 5 s each time, or takes the interval the answer names', async () => {
  const { deps, waits } = script([refused('slow_down'), refused('slow_down'), refused('slow_down', { interval: 30 }), refused('authorization_pending'), { kind: 'token', token }]);
  await waitForApproval({ interval: 5, expires_in: 900 }, deps);
  expect(waits).toEqual([5, 10, 15, 30, 30]);
});

test('nextInterval never shrinks the pace', () => {
  expect(nextInterval(5, 'authorization_pending')).toBe(5);
  expect(nextInterval(5, 'slow_down')).toBe(10);
  expect(nextInterval(20, 'slow_down', 7)).toBe(20);
  expect(nextInterval(5, 'slow_down', 'x')).toBe(10);
});

test('access_denied ends with "login was denied"', async () => {
  const { deps } = script([refused('authorization_pending'), refused('access_denied')]);
  await expect(waitForApproval({ interval: 5, expires_in: 900 }, deps)).rejects.toThrow(/login was denied/);
});

test('expired_token, or the code running out locally, ends with "expired"', async () => {
  const { deps } = script([refused('expired_token')]);
  await expect(waitForApproval({ interval: 5, expires_in: 900 }, deps)).rejects.toThrow(/expired/);
  const local = script(Array.from({ length: 3 }, () => refused('authorization_pending')));
  const err = await waitForApproval({ interval: 5, expires_in: 12 }, local.deps).catch((e) => e);
  expect(err).toBeInstanceOf(CliError);
  expect(err.message).toMatch(/expired/);
  expect(local.waits).toEqual([5, 5, 5]);
});

test('a missing or nonsense interval falls back to 5 s', async () => {
  const { deps, waits } = script([{ kind: 'token', token }]);
  await waitForApproval({ interval: 0 }, deps);
  expect(waits).toEqual([5]);
});

test('passing network and 5xx failures are retried; too many in a row give up with the failure itself', async () => {
  const net = new NetworkError('http://x/v1/auth/device/token', 'ECONNRESET');
  const { deps } = script([net, new ApiError(503, { code: 'unavailable', message: 'm' }, 'u'), { kind: 'token', token }]);
  await expect(waitForApproval({ interval: 5 }, deps)).resolves.toBe(token);
  const dead = script(Array.from({ length: MAX_TRANSIENT_FAILURES }, () => net));
  await expect(waitForApproval({ interval: 5 }, dead.deps)).rejects.toBe(net);
});

test('a 429 waits at least its retry_after_seconds', async () => {
  const { deps, waits } = script([new ApiError(429, { code: 'rate_limited', message: 'm', retry_after_seconds: 20 }, 'u'), { kind: 'token', token }]);
  await waitForApproval({ interval: 5 }, deps);
  expect(waits).toEqual([5, 20]);
});

test('any other refusal (invalid_grant) ends the wait with the envelope', async () => {
  const { deps } = script([refused('invalid_grant')]);
  const err = await waitForApproval({ interval: 5 }, deps).catch((e) => e);
  expect(err).toBeInstanceOf(ApiError);
  expect(err.code).toBe('invalid_grant');
});
