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

  /** Seconds until this key id may be tried again from this address, or null when not blocked. */
  async blockedFor(keyId: string, ip: string): Promise<number | null> {
    const res = await this.limiter.get(subject(keyId, ip));
    if (!res || res.consumedPoints < WRONG_SECRETS_ALLOWED) return null;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
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
