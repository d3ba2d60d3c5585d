import type { Redis } from 'ioredis';
import { RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';

// A count of attempts per key (an address, a caller's IP) in a fixed window,
// kept in Redis and taken atomically, so replicas and concurrent requests
// share one budget: sign-up, recovery and reset starts (5 per hour per
// address), handle lookups per caller address, and the like.

export class AttemptLimit {
  private readonly limiter: RateLimiterRedis;

  constructor(redis: Redis, keyPrefix: string, readonly points: number, readonly windowSeconds: number) {
    this.limiter = new RateLimiterRedis({ storeClient: redis, keyPrefix, points, duration: windowSeconds });
  }

  /** Takes one attempt: null when allowed, else the seconds until the next is. */
  take(key: string): Promise<number | null> {
    return takeOrWait(this.limiter, key);
  }

  /** Whether the window's attempts are all taken, without taking one: null when some remain, else the seconds until one does. */
  async spent(key: string): Promise<number | null> {
    const res = await this.limiter.get(key);
    if (!res || res.consumedPoints < this.points) return null;
    return Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  }
}

/** Takes one point from a rate-limiter-flexible limiter: null when allowed, else the whole seconds until the next (at least 1). */
export async function takeOrWait(limiter: { consume(key: string): Promise<unknown> }, key: string): Promise<number | null> {
  try {
    await limiter.consume(key);
    return null;
  } catch (err) {
    if (!(err instanceof RateLimiterRes)) throw err;
    return Math.max(1, Math.ceil(err.msBeforeNext / 1000));
  }
}
