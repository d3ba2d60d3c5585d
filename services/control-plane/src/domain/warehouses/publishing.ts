import type pg from 'pg';
import { markPrivate, markPublic, type WarehouseRecord, publicTierBytes, storageStep } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { effectiveLimits } from '@floe/db/limits';
import { withQuotaScopeLock } from '@floe/db/quota-scope';
import { StorageError, type StorageProvider } from '@floe/storage';

// Publishing a catalog: one bucket policy lets anyone read the table bucket
// (the catalog itself stays private). Its bytes move to the public tier,
// whose allowance (Limits: 50 GB) is separate from private storage, and so
// does its hard quota: a public table bucket carries the public allowance and
// the private tier's freeze leaves it alone (packages/db/src/limits.ts
// tierBuckets; the metering worker's enforcement-plan.ts). Unpublishing puts
// it back under the private rules: frozen if the catalog is read-only, else
// the hard quota at the private limit. Both run under the quota scope's lock,
// as the enforcement pass does, so a pass never acts on a tier that just changed.

/** State rule: publishing needs the public tier (`limit`, the plan's public_storage_bytes) not to overflow; the figures for 409 `quota_exceeded` when it would. */
export function publicTierOverflow(alreadyPublic: number, adding: number, limit: number): { current: number; limit_value: number; headroom: number } | null {
  const current = alreadyPublic + adding;
  if (current <= limit) return null;
  return { current, limit_value: limit, headroom: Math.max(0, limit - alreadyPublic) };
}

export interface PublishDeps {
  /** The pool the quota scope's lock is taken on. */
  db: pg.Pool;
  prisma: Db;
  storage: StorageProvider;
}

const scopeOf = (w: WarehouseRecord) => ({ orgId: w.orgId, ownerId: w.projectOwner });

export type PublishOutcome =
  | { refused: { current: number; limit_value: number; headroom: number } }
  | { refused: null; policy: unknown; changed: boolean; publicSince: Date; publicBy: string; tierCurrent: number; tierLimit: number; bucketQuotas: BucketQuotas };

/**
 * POST /v1/warehouses/{id}/public after its checks: refused when the public
 * tier would overflow (a catalog already public is never refused); else the
 * bucket policy, then the row, keeping the first publication's time and
 * publisher, then the table bucket's hard quota at the public allowance.
 */
export async function publishWarehouse(d: PublishDeps, w: WarehouseRecord, by: string): Promise<PublishOutcome> {
  return withQuotaScopeLock(d.db, scopeOf(w), async () => {
    const adding = w.usage?.tableBytes ?? 0;
    const alreadyPublic = await publicTierBytes(d.prisma, w.orgId, w.projectOwner, w.id);
    const tierLimit = (await effectiveLimits(d.prisma, w.orgId)).limits.public_storage_bytes;
    const overflow = w.publicSince ? null : publicTierOverflow(alreadyPublic, adding, tierLimit);
    if (overflow) return { refused: overflow };
    const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, true));
    const marked = await markPublic(d.prisma, w.id, by);
    await storageStep(() => d.storage.setBucketQuota(w.tableBucket, tierLimit));
    return { refused: null, policy: result.policy, changed: result.changed, ...marked, tierCurrent: alreadyPublic + adding, tierLimit, bucketQuotas: await bucketQuotas(d.storage, [w.tableBucket]) };
  });
}

/** DELETE /v1/warehouses/{id}/public: the policy goes, then the row forgets the publication, then the table bucket is back under the private rules. */
export async function unpublishWarehouse(d: PublishDeps, w: WarehouseRecord): Promise<{ policyRemoved: boolean; bucketQuotas: BucketQuotas }> {
  return withQuotaScopeLock(d.db, scopeOf(w), async () => {
    const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, false));
    const { readOnlySince } = await markPrivate(d.prisma, w.id);
    const storageLimit = (await effectiveLimits(d.prisma, w.orgId)).limits.storage_bytes;
    await storageStep(async () => {
      if (readOnlySince) await d.storage.freezeBucket(w.tableBucket);
      else await d.storage.setBucketQuota(w.tableBucket, storageLimit);
    });
    return { policyRemoved: result.changed, bucketQuotas: await bucketQuotas(d.storage, [w.tableBucket]) };
  });
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
