import type { Redis } from 'ioredis';

// Authenticating every request against Postgres would double the work of a
// cheap route. Resolved credentials are cached in-process, tagged with a
// deployment-wide epoch kept in Redis. Every change to a credential's standing
// (revoke, suspend, delete) bumps the epoch before it answers, so every
// process sees the change on its very next request: each request reads the
// epoch (one Redis round trip) and drops entries from an older one.

const TTL_MS = 60_000;
const MAX_ENTRIES = 50_000;

interface Entry<T> {
  epoch: string;
  expires: number;
  value: T;
}

export class CredentialCache<T> {
  private readonly entries = new Map<string, Entry<T>>();

  constructor(private readonly redis: Redis, private readonly prefix: string) {}

  epochKey(): string {
    return epochKey(this.prefix);
  }

  async currentEpoch(): Promise<string> {
    return (await this.redis.get(this.epochKey())) ?? '0';
  }

  get(key: string, epoch: string): T | undefined {
    const e = this.entries.get(key);
    if (!e) return undefined;
    if (e.epoch !== epoch || e.expires < Date.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, epoch: string, value: T): void {
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(key, { epoch, expires: Date.now() + TTL_MS, value });
  }
}

function epochKey(prefix: string): string {
  return `${prefix}auth:epoch`;
}

/** Call after any change that must stop a credential working; before answering. */
export async function bumpCredentialEpoch(redis: Redis, prefix: string): Promise<void> {
  await redis.incr(epochKey(prefix));
}
