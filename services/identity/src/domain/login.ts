import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { loginRecordByEmail } from '@floe/accounts';
import type { AttemptLimit } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import { forbidden, HttpError, rateLimited } from '@floe/http';
import { sessionAddressesOf } from '../store/sessions';
import { isKnownAddress } from './known-addresses';
import { sessionAfterPassword, type SecondStepDeps } from './login-second-step';
import { passwordMatches } from './passwords';

// Spec: POST /v1/auth/login. Every failure is the same 401 `invalid_login`
// (unknown address, wrong password, account without a password), in the
// same time. Limits: 10 failures per e-mail address per hour, 120 attempts
// per caller address per hour (FLOE_LOGIN_ATTEMPTS_PER_HOUR; 429
// `rate_limited` with `retry_after_seconds`). Password change
// (password-reset.ts) takes the same two limits and shares both counts: a
// wrong current password is a failed login of that person.
//
// The failure limit must not let anyone who knows an e-mail address lock its
// person out: while it is spent, a caller address the person has signed in
// from before (known-addresses.ts) is still let through to the password
// check. From there a right password logs in; a wrong one still counts, and
// the per-caller limit still holds for everyone.
//
// A right password may not be the end: a second factor, or an organisation
// requiring one, asks for a second step (login-second-step.ts).

export const FAILURES_PER_ADDRESS = 10;
/** How far back a session's address counts as one the person has used, and how many of their sessions are read for it. */
export const KNOWN_ADDRESS_DAYS = 90;
export const KNOWN_ADDRESS_SESSIONS = 100;

/**
 * Failed password checks per e-mail address. Reserve-then-judge, as the
 * wrong-secret limiter (packages/auth): a point is taken atomically BEFORE a
 * password is compared and given back when it was right, so however many
 * attempts arrive at once, at most ten wrong passwords are compared per hour.
 */
export class LoginFailures {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, prefix: string) {
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}rl:login-failures:`, points: FAILURES_PER_ADDRESS, duration: 3600 });
  }

  /** Takes a point: null when taken, else the seconds until the address may try again (the point is counted all the same). */
  async reserve(email: string): Promise<number | null> {
    try {
      await this.limiter.consume(email);
      return null;
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
    }
  }

  /** A right password gives its point back. */
  async giveBack(email: string): Promise<void> {
    await this.limiter.reward(email, 1);
  }
}

/** What the password limits read: the two counts, and the person's sessions for the known-address rule. */
export interface PasswordLimitDeps {
  prisma: PrismaClient;
  loginAttempts: AttemptLimit;
  loginFailures: LoginFailures;
}

export interface LoginDeps extends SecondStepDeps, PasswordLimitDeps {}

const invalidLogin = () => new HttpError(401, 'invalid_login', 'wrong address or password');

/** One attempt of the caller's address (login and password change share the budget); 429 when spent. */
export async function takeLoginAttempt(d: Pick<PasswordLimitDeps, 'loginAttempts'>, ip: string | null): Promise<void> {
  const wait = await d.loginAttempts.take(ip ?? 'unknown');
  if (wait !== null) throw tooManyLoginAttempts(d, wait);
}

/** The 429 of a spent login budget (a provider's sign-in asks it too, without taking an attempt). */
export const tooManyLoginAttempts = (d: Pick<PasswordLimitDeps, 'loginAttempts'>, wait: number) =>
  rateLimited(wait, `at most ${d.loginAttempts.points} login attempts an hour from one address`);

/**
 * Compares a password under the failure limit of its e-mail address (a point
 * taken first, given back when right). A spent limit answers 429 unless
 * `personId` has signed in from `ip` before. True when the password is right.
 */
export async function checkedPassword(
  d: PasswordLimitDeps, a: { email: string; ip: string | null; personId: string | null; stored: string | null; password: string },
): Promise<boolean> {
  const blocked = await d.loginFailures.reserve(a.email);
  if (blocked !== null && !(await fromKnownAddress(d, a.personId, a.ip))) {
    throw rateLimited(blocked, `too many failed logins for this address; try again in ${blocked} s`);
  }
  const right = await passwordMatches(a.stored, a.password);
  if (right) await d.loginFailures.giveBack(a.email);
  return right;
}

async function fromKnownAddress(d: Pick<PasswordLimitDeps, 'prisma'>, personId: string | null, ip: string | null): Promise<boolean> {
  if (!personId || !ip) return false;
  const since = new Date(Date.now() - KNOWN_ADDRESS_DAYS * 86_400_000);
  return isKnownAddress(await sessionAddressesOf(d.prisma, personId, since, KNOWN_ADDRESS_SESSIONS), ip);
}

export async function login(d: LoginDeps, l: { email: string; password: string; userAgent: string | null; ip: string | null }) {
  await takeLoginAttempt(d, l.ip);
  const person = await loginRecordByEmail(d.prisma, l.email);
  const right = await checkedPassword(d, { email: l.email, ip: l.ip, personId: person?.id ?? null, stored: person?.passwordHash ?? null, password: l.password });
  if (!right || !person) throw invalidLogin();
  if (person.status === 'suspended') throw forbidden('principal_suspended', 'this account is suspended');
  return sessionAfterPassword(d, person.id, { email: l.email, userAgent: l.userAgent, ip: l.ip });
}
