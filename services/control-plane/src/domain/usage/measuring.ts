import type { Redis } from 'ioredis';
import type { Db } from '@floe/db';
import { effectiveLimits, type Limits } from '@floe/db/limits';
import { rateLimited } from '@floe/http';
import { StorageError, type BucketMeasure, type StorageProvider } from '@floe/storage';
import { insertOnDemandSample, scopeStoredBytes, storageStep } from '@floe/catalogs';

// POST /v1/warehouses/{id}/measure: list both buckets now (at most 50 pages
// each), keep the result as an `on_demand` usage sample. Quota enforcement
// still follows the hourly sweep; this only answers "how big is it now".

export const MEASURE_PAGE_CAP = 50;
export const MEASURE_INTERVAL_SECONDS = 60;
/** As for the sweep's samples (responses.ts): stale two hours after it was taken. */
export const SAMPLE_STALE_AFTER_MS = 2 * 3600_000;

export interface Measurement {
  table: BucketMeasure;
  blob: BucketMeasure;
  /** `unprovisioned` when the blob bucket does not exist (it then counts as empty). */
  blobBucket: 'listed' | 'unprovisioned';
  seconds: number;
}

const markKey = (prefix: string, warehouseId: string) => `${prefix}measure:${warehouseId}`;

/**
 * Takes the once-a-minute slot atomically (SET NX), so two concurrent calls
 * cannot both list. Returns null when taken, else the seconds left on the mark.
 */
export async function claimMeasureSlot(redis: Redis, prefix: string, warehouseId: string): Promise<{ retryAfterSeconds: number } | null> {
  const key = markKey(prefix, warehouseId);
  const set = await redis.set(key, '1', 'EX', MEASURE_INTERVAL_SECONDS, 'NX');
  if (set === 'OK') return null;
  const ttl = await redis.pttl(key);
  return { retryAfterSeconds: Math.max(1, Math.ceil((ttl > 0 ? ttl : MEASURE_INTERVAL_SECONDS * 1000) / 1000)) };
}

/** A failed measurement gives the slot back: a storage_error costs the caller no wait. */
export async function releaseMeasureSlot(redis: Redis, prefix: string, warehouseId: string): Promise<void> {
  await redis.del(markKey(prefix, warehouseId));
}

export async function measureBuckets(storage: StorageProvider, tableBucket: string, blobBucket: string): Promise<Measurement> {
  const started = Date.now();
  const [table, blob] = await Promise.all([
    storage.measureByListing(tableBucket, MEASURE_PAGE_CAP),
    storage.measureByListing(blobBucket, MEASURE_PAGE_CAP).then(
      (m) => ({ m, listed: true }),
      (err: unknown) => {
        if (err instanceof StorageError && err.kind === 'not_found') {
          return { m: { bytes: 0, objects: 0, pages: 0, page_cap: MEASURE_PAGE_CAP, partial: false }, listed: false };
        }
        throw err;
      },
    ),
  ]);
  return { table, blob: blob.m, blobBucket: blob.listed ? 'listed' : 'unprovisioned', seconds: (Date.now() - started) / 1000 };
}

export interface MeasureDeps {
  prisma: Db;
  redis: Redis;
  redisPrefix: string;
  storage: StorageProvider;
}

export interface MeasuredNow {
  m: Measurement;
  measuredAt: Date;
  /** The quota scope's stored bytes, this sample counted. */
  scopeBytes: number;
  /** The scope's effective limits. */
  limits: Limits;
}

/** Lists both buckets now and keeps the result as an `on_demand` sample; 429 within a minute of the last, 502 `storage_error` (slot given back) when the store fails. */
export async function measureNow(d: MeasureDeps, w: { id: string; tableBucket: string; blobBucket: string; orgId: string | null; projectOwner: string }): Promise<MeasuredNow> {
  const taken = await claimMeasureSlot(d.redis, d.redisPrefix, w.id);
  if (taken) throw rateLimited(taken.retryAfterSeconds, 'a catalog is measured at most once a minute');
  let m: Measurement;
  try {
    m = await storageStep(() => measureBuckets(d.storage, w.tableBucket, w.blobBucket));
  } catch (err) {
    await releaseMeasureSlot(d.redis, d.redisPrefix, w.id);
    throw err;
  }
  const measuredAt = await insertOnDemandSample(d.prisma, w.id, m);
  return { m, measuredAt, scopeBytes: await scopeStoredBytes(d.prisma, w.orgId, w.projectOwner), limits: (await effectiveLimits(d.prisma, w.orgId)).limits };
}
