import type { Redis } from 'ioredis';
import { RateLimiterRedis } from 'rate-limiter-flexible';
import type { AttemptLimit } from '@floe/auth';
import { forbidden, HttpError, rateLimited } from '@floe/http';
import { loginRecordByEmail } from '../store/principals';
import { passwordMatches } from './passwords';
import { openSession, type SessionDeps } from './sessions';

// Spec: POST /v1/auth/login. Every failure is the same 401 `invalid_login`
// (unknown address, wrong password, account without a password), in the
// same time. Limits: 10 failures per address per hour, 120 attempts per
// caller address per hour (FLOE_LOGIN_ATTEMPTS_PER_HOUR; 429 `rate_limited`
// with `retry_after_seconds`).

export const FAILURES_PER_ADDRESS = 10;

/** Failed logins per address: counted only on a failure, read before every attempt. */
export class LoginFailures {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, prefix: string) {
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}rl:login-failures:`, points: FAILURES_PER_ADDRESS, duration: 3600 });
  }

  /** Seconds until the address may try again, or null. */
  async blockedFor(email: string): Promise<number | null> {
    const r = await this.limiter.get(email);
    return r && r.consumedPoints >= FAILURES_PER_ADDRESS ? Math.max(1, Math.ceil(r.msBeforeNext / 1000)) : null;
  }

  async count(email: string): Promise<void> {
    await this.limiter.penalty(email, 1);
  }
}

export interface LoginDeps extends SessionDeps {
  loginAttempts: AttemptLimit;
  loginFailures: LoginFailures;
}

const invalidLogin = () => new HttpError(401, 'invalid_login', 'wrong address or password');

export async function login(d: LoginDeps, l: { email: string; password: string; userAgent: string | null; ip: string | null }) {
  const wait = await d.loginAttempts.take(l.ip ?? 'unknown');
  if (wait !== null) throw rateLimited(wait, `at most ${d.loginAttempts.points} login attempts an hour from one address`);
  const blocked = await d.loginFailures.blockedFor(l.email);
  if (blocked !== null) throw rateLimited(blocked, `too many failed logins for this address; try again in ${blocked} s`);
  const person = await loginRecordByEmail(d.prisma, l.email);
  if (!(await passwordMatches(person?.passwordHash ?? null, l.password)) || !person) {
    await d.loginFailures.count(l.email);
    throw invalidLogin();
  }
  if (person.status === 'suspended') throw forbidden('principal_suspended', 'this account is suspended');
  return openSession(d, person.id, { userAgent: l.userAgent, ip: l.ip });
}
