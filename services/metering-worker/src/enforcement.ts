import { withQuotaScopeLock } from '@floe/db/quota-scope';
import type { UsageReportAnswer } from '@floe/queues';
import { StorageError } from '@floe/storage';
import { clearReadOnly, markReadOnly, scopeWarehouses } from '@floe/catalogs';
import type { MeteringDeps } from './deps';
import { driftedQuotas, enforcementPlan, type HardQuota, type TierLimits } from './enforcement-plan';

// The enforcement pass of a quota scope, run after each catalog's report
// (so after every sweep, and after a new catalog's first sample): the
// control plane answered the scope's private stored bytes against its limit;
// this applies enforcement-plan.ts to the scope's buckets and marks
// `warehouses.read_only_since`. Every step is idempotent; a scope's pass
// acts under the scope's lock (packages/db/src/quota-scope.ts), which
// publishing and unpublishing take too, so neither replicas nor a
// publication ever interleave with it.

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

async function setHardQuotas(d: Pick<MeteringDeps, 'storage'>, quotas: HardQuota[]): Promise<void> {
  for (const q of quotas) await onBucket(d.storage.setBucketQuota(q.bucket, q.limitBytes));
}

export interface EnforcementResult {
  frozen: string[];
  lifted: string[];
  /** The measured catalog's buckets whose hard quota was set again. */
  quotasReset: string[];
}

/**
 * Enforces the scope of one report. `measured` is the catalog just measured
 * with its buckets' quotas as the stats call read them (per bucket): a
 * standing hard quota that drifted from its limit is set again.
 */
export async function enforceScope(
  d: Pick<MeteringDeps, 'db' | 'prisma' | 'storage' | 'logger'>, answer: UsageReportAnswer, measured: { id: string; quotas: Map<string, Quota> },
): Promise<EnforcementResult> {
  const scope = answer.scope!;
  const limits: TierLimits = { storage: answer.limit_value, publicStorage: answer.public_limit_value };
  const pending = async () => {
    const catalogs = await scopeWarehouses(d.prisma, { orgId: scope.org_id, ownerId: scope.owner_id });
    const plan = enforcementPlan({ over: answer.over, limits, catalogs });
    const self = catalogs.find((c) => c.id === measured.id);
    const drifted = self ? driftedQuotas(self, limits, answer.over || self.readOnlySince !== null, measured.quotas) : [];
    return { plan, drifted };
  };
  // Most passes change nothing: decide without the lock, and take it only to act.
  const first = await pending();
  if (!first.plan.freeze.length && !first.plan.lift.length && !first.drifted.length) return { frozen: [], lifted: [], quotasReset: [] };

  return withQuotaScopeLock(d.db, { orgId: scope.org_id, ownerId: scope.owner_id }, async () => {
    const { plan, drifted } = await pending();
    for (const c of plan.freeze) {
      for (const bucket of c.buckets) await onBucket(d.storage.freezeBucket(bucket));
      await markReadOnly(d.prisma, c.id);
    }
    for (const c of plan.lift) {
      await setHardQuotas(d, c.quotas);
      await clearReadOnly(d.prisma, c.id);
    }
    await setHardQuotas(d, drifted);
    const frozen = plan.freeze.map((c) => c.id);
    const lifted = plan.lift.map((c) => c.id);
    if (frozen.length || lifted.length) {
      d.logger.info('storage limit enforced', { scope: scope.kind, org_id: scope.org_id, stored_bytes: answer.stored_bytes, limit_value: limits.storage, frozen, lifted });
    }
    return { frozen, lifted, quotasReset: drifted.map((q) => q.bucket) };
  });
}
