import type { Redis } from 'ioredis';
import type { SqlClient } from '@floe/http';
import { StorageError, type BucketMeasure, type StorageProvider } from '@floe/storage';

// POST /v1/warehouses/{id}/measure: list both buckets now (at most 50 pages
// each), keep the result as an `on_demand` usage sample. Quota enforcement
// still follows the hourly sweep; this only answers "how big is it now".

export const MEASURE_PAGE_CAP = 50;
export const MEASURE_INTERVAL_SECONDS = 60;
/** As for the sweep's samples (views.ts): stale two hours after it was taken. */
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

/** Stores the measurement as the warehouse's newest sample; returns its time. */
export async function storeOnDemandSample(db: SqlClient, warehouseId: string, m: Measurement): Promise<Date> {
  const complete = !m.table.partial && !m.blob.partial;
  const { rows } = await db.query<{ measured_at: Date }>(
    `INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete)
     VALUES ($1, 'on_demand', $2, $3, $4, $5, $6) RETURNING measured_at`,
    [warehouseId, m.table.bytes, m.blob.bytes, m.table.objects, m.blob.objects, complete],
  );
  return rows[0].measured_at;
}
