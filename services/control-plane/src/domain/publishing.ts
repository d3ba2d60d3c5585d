import type { Db } from '@floe/db';
import { effectiveLimits } from '@floe/db/limits';
import { StorageError, type StorageProvider } from '@floe/storage';
import { markPrivate, markPublic, type WarehouseRecord } from '../store/warehouses';
import { publicTierBytes } from '../store/usage';
import { storageStep } from './storage-step';

// Publishing a catalog: one bucket policy lets anyone read the table bucket
// (the catalog itself stays private). Its bytes move to the public tier,
// whose allowance (Limits: 50 GB) is separate from private storage.

/** State rule: publishing needs the public tier (`limit`, the plan's public_storage_bytes) not to overflow; the figures for 409 `quota_exceeded` when it would. */
export function publicTierOverflow(alreadyPublic: number, adding: number, limit: number): { current: number; limit_value: number; headroom: number } | null {
  const current = alreadyPublic + adding;
  if (current <= limit) return null;
  return { current, limit_value: limit, headroom: Math.max(0, limit - alreadyPublic) };
}

export interface PublishDeps {
  prisma: Db;
  storage: StorageProvider;
}

export type PublishOutcome =
  | { refused: { current: number; limit_value: number; headroom: number } }
  | { refused: null; policy: unknown; changed: boolean; publicSince: Date; publicBy: string; tierCurrent: number; tierLimit: number; bucketQuotas: BucketQuotas };

/**
 * POST /v1/warehouses/{id}/public after its checks: refused when the public
 * tier would overflow (a catalog already public is never refused); else the
 * bucket policy, then the row, keeping the first publication's time and publisher.
 */
export async function publishWarehouse(d: PublishDeps, w: WarehouseRecord, by: string): Promise<PublishOutcome> {
  const adding = w.usage?.tableBytes ?? 0;
  const alreadyPublic = await publicTierBytes(d.prisma, w.orgId, w.projectOwner, w.id);
  const tierLimit = (await effectiveLimits(d.prisma, w.orgId)).limits.public_storage_bytes;
  const overflow = w.publicSince ? null : publicTierOverflow(alreadyPublic, adding, tierLimit);
  if (overflow) return { refused: overflow };
  const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, true));
  const marked = await markPublic(d.prisma, w.id, by);
  return { refused: null, policy: result.policy, changed: result.changed, ...marked, tierCurrent: alreadyPublic + adding, tierLimit, bucketQuotas: await bucketQuotas(d.storage, [w.tableBucket]) };
}

/** DELETE /v1/warehouses/{id}/public: the policy goes, then the row forgets the publication. */
export async function unpublishWarehouse(d: PublishDeps, w: WarehouseRecord): Promise<{ policyRemoved: boolean; bucketQuotas: BucketQuotas }> {
  const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, false));
  await markPrivate(d.prisma, w.id);
  return { policyRemoved: result.changed, bucketQuotas: await bucketQuotas(d.storage, [w.tableBucket]) };
}

export interface BucketQuotas {
  quotas: Record<string, { enabled: boolean; max_bytes: number | null }>;
  errors: Array<{ bucket: string; error: string }>;
}

/** The hard quotas the store holds on the buckets; a bucket the admin API cannot read is listed under errors, not fatal. */
async function bucketQuotas(storage: StorageProvider, buckets: string[]): Promise<BucketQuotas> {
  const quotas: BucketQuotas['quotas'] = {};
  const errors: BucketQuotas['errors'] = [];
  for (const bucket of buckets) {
    try {
      const q = await storage.getBucketQuota(bucket);
      quotas[bucket] = { enabled: q.enabled, max_bytes: q.maxBytes };
    } catch (err) {
      errors.push({ bucket, error: err instanceof StorageError ? err.kind : 'unavailable' });
    }
  }
  return { quotas, errors };
}
