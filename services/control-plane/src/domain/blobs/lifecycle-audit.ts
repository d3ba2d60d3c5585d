import { warehousesWithBuckets } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { mapLimited } from '@floe/iceberg';
import { isLifecycleStatement, StorageError, type LifecycleRuleView, type StorageProvider } from '@floe/storage';

// GET /internal/lifecycle-audit: no table bucket may carry a lifecycle rule
// (an expiry there deletes table files under a live table) or a bucket policy
// statement that lets anyone set one. Lifecycle belongs on blob buckets only;
// `include_blobs` reports those rules beside. Every bucket is read as its
// owner, sixteen at a time (a deployment holds thousands of catalogs and the
// store answers each read in milliseconds); a bucket that cannot be read is
// reported, not skipped.

const LANES = 16;

export interface TableBucketFinding {
  warehouse_id: string;
  name: string;
  bucket: string;
  kind: 'tables';
  /** null when the bucket could not be read. */
  clean: boolean | null;
  lifecycle_rules: Array<{ id: string | null; prefix: string }>;
  lifecycle_statements: Array<{ index: number; sid: string | null }>;
  absent?: true;
  error?: string;
}

export interface BlobBucketFinding {
  warehouse_id: string;
  name: string;
  bucket: string;
  kind: 'blobs';
  configured: boolean | null;
  rules: LifecycleRuleView[];
  absent?: true;
  error?: string;
}

type AuditDeps = { prisma: Db; storage: Pick<StorageProvider, 'getLifecycle' | 'getBucketPolicy'> };
type Row = Awaited<ReturnType<typeof warehousesWithBuckets>>[number];

/** A read of one bucket: its answer, `absent` when the bucket is gone, or the store's failure kind. */
async function read<T>(step: () => Promise<T>): Promise<{ value?: T; absent?: true; error?: string }> {
  try {
    return { value: await step() };
  } catch (err) {
    if (err instanceof StorageError && err.kind === 'not_found') return { absent: true };
    if (err instanceof StorageError) return { error: err.kind };
    throw err;
  }
}

async function auditTableBucket(d: AuditDeps, w: Row): Promise<TableBucketFinding> {
  const base = { warehouse_id: w.id, name: w.name, bucket: w.tableBucket, kind: 'tables' as const, lifecycle_rules: [], lifecycle_statements: [] };
  const lc = await read(() => d.storage.getLifecycle(w.tableBucket));
  if (lc.absent) return { ...base, clean: true, absent: true };
  const policy = await read(() => d.storage.getBucketPolicy(w.tableBucket));
  if (lc.error || policy.error) return { ...base, clean: null, error: lc.error ?? policy.error };
  const lifecycle_rules = lc.value!.rules.map((r) => ({ id: r.id, prefix: r.prefix }));
  const lifecycle_statements = (policy.value?.Statement ?? []).flatMap((s, index) =>
    isLifecycleStatement(s) ? [{ index, sid: typeof s.Sid === 'string' ? s.Sid : null }] : []);
  return { ...base, clean: lifecycle_rules.length === 0 && lifecycle_statements.length === 0, lifecycle_rules, lifecycle_statements };
}

async function reportBlobBucket(d: AuditDeps, w: Row): Promise<BlobBucketFinding> {
  const base = { warehouse_id: w.id, name: w.name, bucket: w.blobBucket, kind: 'blobs' as const };
  const lc = await read(() => d.storage.getLifecycle(w.blobBucket));
  if (lc.value) return { ...base, configured: lc.value.configured, rules: lc.value.rules };
  return { ...base, configured: lc.absent ? false : null, rules: [], ...(lc.absent ? { absent: true as const } : { error: lc.error }) };
}

export async function auditLifecycle(d: AuditDeps, includeBlobs: boolean) {
  const started = Date.now();
  const warehouses = await warehousesWithBuckets(d.prisma);
  const tables = await mapLimited(warehouses, LANES, (w) => auditTableBucket(d, w));
  const blobs = includeBlobs ? await mapLimited(warehouses, LANES, (w) => reportBlobBucket(d, w)) : undefined;
  const flagged = tables.filter((t) => t.clean === false);
  const unread = tables.filter((t) => t.clean === null).length;
  return {
    // Clean only when every table bucket was read and none carries lifecycle.
    clean: flagged.length === 0 && unread === 0,
    checked: tables.length,
    flagged: flagged.length,
    unreadable: unread,
    checked_at: new Date(started).toISOString(),
    seconds: (Date.now() - started) / 1000,
    flagged_buckets: flagged.map((t) => t.bucket),
    table_buckets: tables,
    ...(blobs ? { blob_buckets: blobs } : {}),
    note: 'Table buckets must carry no lifecycle rule and no bucket policy statement that allows setting one; lifecycle belongs on blob buckets.',
  };
}
