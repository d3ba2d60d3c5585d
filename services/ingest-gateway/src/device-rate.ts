import type { Redis } from 'ioredis';
import { BurstyRateLimiter, RateLimiterRedis } from 'rate-limiter-flexible';
import { takeOrWait } from '@floe/auth';
import { DEVICE_RATE } from '@floe/ingest';

// Limits: the device route takes 6 posts per minute per sink sustained, with
// bursts of 30. One post per 10-second window is the sustained rate (so a
// refused device waits a few seconds, never a minute); the burst allowance of
// 29 more refills hourly, so a burst of 30 is always there after a quiet hour.
const WINDOW_SECONDS = 60 / DEVICE_RATE.posts_per_minute;
const BURST_REFILL_SECONDS = 3600;

export class DeviceRateLimiter {
  private readonly limiter: BurstyRateLimiter;

  constructor(redis: Redis, prefix: string) {
    this.limiter = new BurstyRateLimiter(
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}rl:device`, points: 1, duration: WINDOW_SECONDS }),
      new RateLimiterRedis({ storeClient: redis, keyPrefix: `${prefix}rl:device-burst`, points: DEVICE_RATE.burst - 1, duration: BURST_REFILL_SECONDS }),
    );
  }

  /** Takes one post from the sink's allowance: null when allowed, else the seconds to wait. */
  async take(sinkId: string): Promise<number | null> {
    return takeOrWait(this.limiter, sinkId);
  }
}
