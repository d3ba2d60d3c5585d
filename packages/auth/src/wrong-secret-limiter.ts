import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// Authentication 2: ten wrong secrets for one key id from one address within
// ten minutes, then 429 with Retry-After. The 11th attempt is refused whatever
// secret it carries, so a correct guess after the limit gains nothing.
export const WRONG_SECRETS_ALLOWED = 10;
export const WRONG_SECRET_WINDOW_SECONDS = 600;

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
   * The Redis key holding the count of wrong secrets (an integer, as the
   * library stores points), so a caller can read it in the same round trip as
   * other keys on the hot path.
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
    return Math.max(1, Math.ceil((res?.msBeforeNext ?? 1000) / 1000));
  }

  async recordFailure(keyId: string, ip: string): Promise<void> {
    try {
      await this.limiter.consume(subject(keyId, ip));
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
    }
  }
}

function subject(keyId: string, ip: string): string {
  return `${keyId}:${ip}`;
}
