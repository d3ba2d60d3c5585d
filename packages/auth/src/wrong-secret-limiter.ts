import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// Authentication 2: ten wrong secrets for one key id from one address within
// ten minutes, then 429 with Retry-After. The 11th attempt is refused whatever
// secret it carries, so a correct guess after the limit gains nothing.
//
// The count is reserve-then-judge, not check-then-increment: an attempt takes
// a point (one atomic Lua call in Redis) BEFORE its secret is compared, and a
// secret that turns out right gives the point back. So however many attempts
// arrive at once, at most ten secrets per key id and address are ever compared
// in a window; with check-then-increment, twenty concurrent guesses all passed
// the check before any failure was counted.
export const WRONG_SECRETS_ALLOWED = 10;
export const WRONG_SECRET_WINDOW_SECONDS = 600;

export type Judgement =
  | { verdict: 'right' }
  | { verdict: 'wrong' }
  /** No attempt left: the secret was not compared. */
  | { verdict: 'refused'; retryAfterSeconds: number };

export class WrongSecretLimiter {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, prefix: string) {
    this.limiter = new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: `${prefix}rl:apikey`,
      points: WRONG_SECRETS_ALLOWED,
      duration: WRONG_SECRET_WINDOW_SECONDS,
    });
  }

  /**
   * The Redis key holding the count (an integer, as the library stores
   * points: wrong secrets plus attempts being judged right now), so a caller
   * can read it in the same round trip as other keys on the hot path.
   */
  counterKey(keyId: string, ip: string): string {
    return this.limiter.getKey(subject(keyId, ip));
  }

  static isBlocked(counterValue: string | null): boolean {
    return Number(counterValue ?? 0) >= WRONG_SECRETS_ALLOWED;
  }

  /** Seconds until this key id may be tried again from this address (only asked once blocked). */
  async retryAfterSeconds(keyId: string, ip: string): Promise<number> {
    const res = await this.limiter.get(subject(keyId, ip));
    return retryAfter(res?.msBeforeNext);
  }

  /**
   * Reserves one attempt, then runs `compare` (true when the secret is
   * right). A right secret, or a compare that throws (not a wrong secret but
   * a failure to judge), gives the point back; a wrong one keeps it. When no
   * attempt is left, `compare` is never called.
   */
  async judge(keyId: string, ip: string, compare: () => boolean | Promise<boolean>): Promise<Judgement> {
    const key = subject(keyId, ip);
    try {
      await this.limiter.consume(key);
    } catch (err) {
      if (err instanceof RateLimiterRes) return { verdict: 'refused', retryAfterSeconds: retryAfter(err.msBeforeNext) };
      throw err;
    }
    let right: boolean;
    try {
      right = await compare();
    } catch (err) {
      await this.limiter.reward(key).catch(() => undefined);
      throw err;
    }
    if (!right) return { verdict: 'wrong' };
    await this.limiter.reward(key);
    return { verdict: 'right' };
  }
}

function subject(keyId: string, ip: string): string {
  return `${keyId}:${ip}`;
}

function retryAfter(ms: number | undefined): number {
  return Math.max(1, Math.ceil((ms ?? 1000) / 1000));
}
