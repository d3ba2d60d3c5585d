// An authenticator app as the tests hold one: codes computed by otplib from
// the secret an enrolment shows, each time step handed out once and in
// order — the server refuses a step at or before the last one it accepted,
// and any step beyond now ±1 — waiting for the clock when that window is
// used up. A fresh app starts at the current step rather than the one before:
// a code of the previous step goes out of the window when the clock turns
// between computing it and the server checking it (a slow CI run did).
import { generate } from 'otplib';

const PERIOD_SECONDS = 30;

/** The next usable code of `secret`'s app, each call a later step. */
export function authenticatorApp(secret: string): () => Promise<string> {
  let last = -Infinity;
  return async () => {
    for (;;) {
      const now = Math.floor(Date.now() / 1000 / PERIOD_SECONDS);
      const step = Math.max(last + 1, now);
      if (step <= now + 1) {
        last = step;
        return generate({ secret, epoch: step * PERIOD_SECONDS });
      }
      await new Promise((r) => setTimeout(r, 1000));
    }
  };
}
