import type pg from 'pg';
import { markPrivate, markPublic, type WarehouseRecord, publicTierBytes, storageStep } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { effectiveLimits } from '@floe/db/limits';
import { withQuotaScopeLock } from '@floe/db/quota-scope';
import { badRequest } from '@floe/http';
import { StorageError, type StorageProvider } from '@floe/storage';

// Publishing a catalog: one bucket policy lets anyone read the table bucket
// (the catalog itself stays private), or only the objects under a files
// prefix (one table's location, say). Its bytes move to the public tier,
// whose allowance (Limits: 50 GB) is separate from private storage, and so
// does its hard quota: a public table bucket carries the public allowance and
// the private tier's freeze leaves it alone (packages/db/src/limits.ts
// tierBuckets; the metering worker's enforcement-plan.ts). Unpublishing puts
// it back under the private rules: frozen if the catalog is read-only, else
// the hard quota at the private limit. Both run under the quota scope's lock,
// as the enforcement pass does, so a pass never acts on a tier that just changed.
// A files prefix changes what anyone may read, not the tier: the hard quota is
// the bucket's, so the whole table bucket counts as public either way.

/** The longest `files_prefix` taken (S3 keys are at most 1024 bytes; a prefix leaves room for the rest). */
export const FILES_PREFIX_MAX_BYTES = 512;

/**
 * Input rule for POST …/public `files_prefix`: the part of the table bucket anyone may
 * read, as a key prefix (`lake/cities/`) or a location in this catalog's bucket
 * (`s3://<bucket>/lake/cities`). Answers the key prefix ending in `/` ('' for the whole
 * bucket, as without the field). Refused with 400 `invalid_files_prefix`: another
 * bucket, an absolute or climbing path (`/`, `.`, `..`, empty segments), control
 * characters, and the policy language's own `*`, `?` and `${`, which would widen or
 * rewrite what the statement grants.
 */
export function filesPrefixOf(w: Pick<WarehouseRecord, 'tableBucket'>, raw: unknown): string {
  if (raw === undefined || raw === null || raw === '') return '';
  const refuse = (reason: string) => badRequest('invalid_files_prefix', `files_prefix ${reason}`, {
    field: 'files_prefix', reason, example: 'lake/cities/', bucket: w.tableBucket,
  });
  if (typeof raw !== 'string') throw refuse('must be a string: a key prefix in the catalog\'s table bucket');
  let prefix = raw;
  if (/^s3a?:\/\//i.test(prefix)) {
    const own = `s3://${w.tableBucket}/`;
    const normalized = prefix.replace(/^s3a?:\/\//i, 's3://');
    if (!normalized.startsWith(own) && normalized !== own.slice(0, -1)) throw refuse(`names another bucket; this catalog's files are under ${own}`);
    prefix = normalized.slice(own.length);
    if (prefix === '') return '';
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(prefix)) throw refuse('holds a control character');
  if (/[*?]|\$\{/.test(prefix)) throw refuse('holds `*`, `?` or `${`, which a bucket policy reads as patterns or variables');
  if (prefix.startsWith('/')) throw refuse('starts with `/`: give a key prefix relative to the bucket');
  if (!prefix.endsWith('/')) prefix += '/';
  if (prefix.slice(0, -1).split('/').some((seg) => seg === '' || seg === '.' || seg === '..')) {
    throw refuse('holds an empty, `.` or `..` segment');
  }
  if (Buffer.byteLength(prefix) > FILES_PREFIX_MAX_BYTES) throw refuse(`is longer than ${FILES_PREFIX_MAX_BYTES} bytes`);
  return prefix;
}

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
 * bucket policy (the whole bucket, or the objects under `prefix`; publishing
 * again with another prefix replaces it), then the row, keeping the first publication's time and
 * publisher, then the table bucket's hard quota at the public allowance.
 */
export async function publishWarehouse(d: PublishDeps, w: WarehouseRecord, by: string, prefix: string): Promise<PublishOutcome> {
  return withQuotaScopeLock(d.db, scopeOf(w), async () => {
    const adding = w.usage?.tableBytes ?? 0;
    const alreadyPublic = await publicTierBytes(d.prisma, w.orgId, w.projectOwner, w.id);
    const tierLimit = (await effectiveLimits(d.prisma, w.orgId)).limits.public_storage_bytes;
    const overflow = w.publicSince ? null : publicTierOverflow(alreadyPublic, adding, tierLimit);
    if (overflow) return { refused: overflow };
    const result = await storageStep(() => d.storage.setPublicRead(w.tableBucket, true, prefix));
    const marked = await markPublic(d.prisma, w.id, by, prefix);
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
