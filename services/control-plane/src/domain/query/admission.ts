import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { HttpError } from '@floe/http';

// The hosted query's share of the deployment (issue 35): at most
// `concurrency` statements and previews running or waiting across every
// control plane, of them at most `orgShare` for one organisation; beyond
// either the caller is answered 429 `busy` with Retry-After at once instead
// of waiting behind the others. Each admitted statement holds a place in two
// sorted sets in Redis (scored by when its place lapses, so a control plane
// that died mid-statement frees its places by itself), taken in one script so
// twenty callers at once never take more places than there are.

const TAKE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 1 end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then return 2 end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], 3600000)
redis.call('PEXPIRE', KEYS[2], 3600000)
return 0
`;

/** How long to wait before asking again: a statement takes seconds at most. */
const RETRY_AFTER_SECONDS = 2;

export interface QueryShare {
  concurrency: number;
  orgShare: number;
}

export interface QueryPlace {
  release(): Promise<void>;
}

export function busy(message: string, extras: Record<string, unknown> = {}): HttpError {
  return new HttpError(429, 'busy', message, { retry_after_seconds: RETRY_AFTER_SECONDS, ...extras }, { 'Retry-After': String(RETRY_AFTER_SECONDS) });
}

/**
 * Takes a place for one statement of `orgId` (the caller's own principal for a
 * catalog outside any organisation) until `lapsesAt` (epoch ms), or answers
 * 429 `busy`. Release it when the answer is in.
 */
export async function admitQuery(redis: Redis, prefix: string, share: QueryShare, orgId: string, lapsesAt: number): Promise<QueryPlace> {
  const deployment = `${prefix}query:places`;
  const org = `${prefix}query:places:${orgId}`;
  const place = randomBytes(9).toString('base64url');
  const taken = Number(await redis.eval(TAKE, 2, deployment, org, Date.now(), lapsesAt, place, share.concurrency, share.orgShare));
  if (taken === 1) throw busy(`the deployment is running its ${share.concurrency} statements at once; try again shortly`, { limit: share.concurrency, scope: 'deployment' });
  if (taken === 2) throw busy(`your organisation is running its share of ${share.orgShare} statements at once; try again when one has answered`, { limit: share.orgShare, scope: 'organization' });
  return {
    async release() {
      await redis.multi().zrem(deployment, place).zrem(org, place).exec();
    },
  };
}
