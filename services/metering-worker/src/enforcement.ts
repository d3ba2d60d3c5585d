import type { UsageReportAnswer } from '@floe/queues';
import { StorageError, type StorageProvider } from '@floe/storage';
import type { MeteringDeps } from './deps';
import { enforcementPlan, hardQuotaDrifted } from './enforcement-plan';
import { clearReadOnly, markReadOnly, scopeWarehouses, type MeteredWarehouse } from './store/warehouses';

// The enforcement pass of a quota scope, run after each catalog's report
// (so after every sweep, and after a new catalog's first sample): the
// control plane answered the scope's stored bytes against its limit; this
// applies enforcement-plan.ts to the scope's buckets and marks
// `warehouses.read_only_since`. Every step is idempotent; a scope's pass
// runs under a Postgres advisory lock so replicas never interleave one.

type Quota = { enabled: boolean; maxBytes: number | null };

/** A blob bucket that was never made counts as empty and needs no quota. */
async function onBucket<T>(step: Promise<T>): Promise<T | null> {
  try {
    return await step;
  } catch (err) {
    if (err instanceof StorageError && err.kind === 'not_found') return null;
    throw err;
  }
}

async function freeze(storage: StorageProvider, w: MeteredWarehouse): Promise<void> {
  await onBucket(storage.freezeBucket(w.tableBucket));
  await onBucket(storage.freezeBucket(w.blobBucket));
}

async function setHardQuota(storage: StorageProvider, w: MeteredWarehouse, limit: number): Promise<void> {
  await onBucket(storage.setBucketQuota(w.tableBucket, limit));
  await onBucket(storage.setBucketQuota(w.blobBucket, limit));
}

async function underScopeLock<T>(d: Pick<MeteringDeps, 'db'>, key: string, fn: () => Promise<T>): Promise<T> {
  const client = await d.db.connect();
  try {
    await client.query('SELECT pg_advisory_lock(hashtext($1))', [`metering-scope:${key}`]);
    try {
      return await fn();
    } finally {
      await client.query('SELECT pg_advisory_unlock(hashtext($1))', [`metering-scope:${key}`]);
    }
  } finally {
    client.release();
  }
}

export interface EnforcementResult {
  frozen: string[];
  lifted: string[];
  /** Whether the measured catalog's hard quota was set again. */
  quotaReset: boolean;
}

/**
 * Enforces the scope of one report. `measured` is the catalog just measured
 * with its buckets' quotas as the stats call read them: if it stays
 * writable and a quota drifted from the limit, the hard quota is set again.
 */
export async function enforceScope(
  d: Pick<MeteringDeps, 'db' | 'prisma' | 'storage' | 'logger'>, answer: UsageReportAnswer, measured: { id: string; quotas: Quota[] },
): Promise<EnforcementResult> {
  const scope = answer.scope!;
  const scopeRef = { orgId: scope.org_id, ownerId: scope.owner_id };
  const limit = answer.limit_value;
  const pending = async () => {
    const catalogs = await scopeWarehouses(d.prisma, scopeRef);
    const plan = enforcementPlan({ over: answer.over, catalogs });
    const self = catalogs.find((c) => c.id === measured.id);
    const drifted = Boolean(self && !answer.over && !self.readOnlySince && measured.quotas.some((q) => hardQuotaDrifted(q, limit)));
    return { catalogs, plan, self, drifted };
  };
  // Most passes change nothing: decide without the lock, and take it only to act.
  const first = await pending();
  if (!first.plan.freeze.length && !first.plan.lift.length && !first.drifted) return { frozen: [], lifted: [], quotaReset: false };

  return underScopeLock(d, scope.org_id ?? `owner:${scope.owner_id}`, async () => {
    const { catalogs, plan, self, drifted } = await pending();
    const byId = new Map(catalogs.map((c) => [c.id, c]));
    for (const id of plan.freeze) {
      await freeze(d.storage, byId.get(id)!);
      await markReadOnly(d.prisma, id);
    }
    for (const id of plan.lift) {
      await setHardQuota(d.storage, byId.get(id)!, limit);
      await clearReadOnly(d.prisma, id);
    }
    if (drifted && self) await setHardQuota(d.storage, self, limit);
    if (plan.freeze.length || plan.lift.length) {
      d.logger.info('storage limit enforced', { scope: scope.kind, org_id: scope.org_id, stored_bytes: answer.stored_bytes, limit_value: limit, frozen: plan.freeze, lifted: plan.lift });
    }
    return { frozen: plan.freeze, lifted: plan.lift, quotaReset: drifted };
  });
}
