import type { PrismaClient } from '@floe/db';
import { holdCommitGate } from '@floe/db/commit-gate';
import { SessionLockTimeout, withSessionLock } from '@floe/db/session-lock';
import { writeAudit } from '@floe/http';
import type { TableMetadata } from '@floe/iceberg';
import { MAINTENANCE_KINDS, rulesCrossed, type MaintenanceJob, type MaintenanceKind } from '@floe/queues';
import type { MaintenanceDeps } from './deps';
import { figuresOf } from './figures';
import { RUNNERS } from './runs';
import { PlanOutdated, type KindOutcome, type KindPlan, type RunContext } from './runs/kind';
import { lostRace } from './runs/turns';
import { abandonRuns, beginRun, finishRun } from './store/runs';
import { orgOfWarehouse } from './store/tables';
import { openTable, type TableAccess, type TableRef } from '@floe/catalog-client';

// One table's maintenance job: its kinds in their order (MAINTENANCE_KINDS:
// the rewrites, then expiry, orphans last), one at a time,
// holding the table's lock so no two runs of one table interleave on any
// replica. Each kind plans from the table as it is now, commits through the
// catalog with requirements on what it read, and on a 409 (a sink's roll or
// an engine committed meanwhile) plans once more from the new head — never
// losing or doubling the concurrent commit — or gives up. Every kind's run is
// recorded (maintenance_runs) and audited `table.maintain`.

type Deps = Pick<MaintenanceDeps, 'prisma' | 'db' | 'catalog' | 'storage' | 'logger' | 'config' | 'engine'>;

/** How long a run waits for another run of the same table to end before the job is retried later. */
const TABLE_LOCK_WAIT_MS = 5_000;

export const lockKeyOf = (ref: TableRef) => `maintain:${ref.warehouseId}:${JSON.stringify([ref.namespace, ref.table])}`;

export function contextOf(d: Deps, nowMs = Date.now()): RunContext {
  return {
    catalog: d.catalog, logger: d.logger, nowMs, orphanAgeMs: d.config.maintenance.orphanAgeSeconds * 1000, engine: d.engine.get, crashAt: d.config.maintenance.crashAt,
    holdGate: (ref, fn) => holdCommitGate(d.db, { warehouseId: ref.warehouseId, namespace: ref.namespace, name: ref.table }, fn),
  };
}

const ordered = (kinds: MaintenanceKind[]) => MAINTENANCE_KINDS.filter((k) => kinds.includes(k));
/** Another writer got between the plan and its commit: the catalog's 409, or a replace that could not be rebuilt on the new head. */
const isConflict = (err: unknown) => lostRace(err) || err instanceof PlanOutdated;

export interface KindResult {
  kind: MaintenanceKind;
  run_id: string;
  status: string;
  reason: string | null;
}

export async function maintainTable(d: Deps, job: MaintenanceJob, jobId: string | null): Promise<KindResult[]> {
  const ref: TableRef = { warehouseId: job.warehouse_id, namespace: job.namespace, table: job.table };
  try {
    return await withSessionLock(d.db, lockKeyOf(ref), async () => {
      await abandonRuns(d.prisma, ref);
      const results: KindResult[] = [];
      // A rule's or the sweep's job judges the table it opens; the first kind plans from that same load.
      let opened = job.trigger.type === 'manual' ? null : await openTable(d, ref);
      for (const kind of ordered(opened ? kindsDue(job, opened.metadata) : job.kinds)) {
        results.push(await runKind(d, ref, kind, job, jobId, opened));
        opened = null;
      }
      return results;
    }, { waitMs: TABLE_LOCK_WAIT_MS });
  } catch (err) {
    if (err instanceof SessionLockTimeout) throw new Error(`another run of ${job.namespace.join('.')}.${job.table} holds the table; this job is retried`);
    throw err;
  }
}

/**
 * A rule's or the sweep's job does what the table needs now: a second rule
 * crossed while the first job waited joined it without adding its kind (the
 * job id is the table's), so the rules are judged again here. A person's
 * job does what they asked.
 */
function kindsDue(job: MaintenanceJob, metadata: TableMetadata): MaintenanceKind[] {
  const now = rulesCrossed(metadata, { nowMs: Date.now(), lastOrphanPassMs: Date.now(), orphanPassEveryMs: Number.POSITIVE_INFINITY });
  return [...new Set([...job.kinds, ...now.map((h) => h.kind)])];
}

/** One kind's run; `opened`: the table as this job just loaded it, else it is loaded here. */
async function runKind(d: Deps, ref: TableRef, kind: MaintenanceKind, job: MaintenanceJob, jobId: string | null, opened: TableAccess | null): Promise<KindResult> {
  const runner = RUNNERS[kind];
  let t = opened ?? await openTable(d, ref);
  const runId = await beginRun(d.prisma, {
    ref, tableUuid: t.metadata['table-uuid'] ?? null, kind, trigger: job.trigger, requestedBy: job.requested_by, jobId, before: await figuresOf(t),
  });
  const ctx = contextOf(d);
  let status: 'done' | 'skipped' | 'retried_after_conflict' | 'failed' = 'done';
  let reason: string | null = null;
  let freed = 0;
  let snapshotId: bigint | null = null;
  let extra: Record<string, number> = {};
  try {
    let plan: KindPlan = await runner.plan(ctx, t);
    extra = plan.extra ?? {};
    if (plan.nothing) {
      status = 'skipped';
      reason = plan.reason;
    } else {
      let outcome: KindOutcome;
      try {
        outcome = await runner.apply(ctx, t, plan);
      } catch (err) {
        if (!isConflict(err)) throw err;
        // Another writer committed between the plan and its commit: plan again from the new head, once.
        status = 'retried_after_conflict';
        t = await openTable(d, ref);
        plan = await runner.plan(contextOf(d), t);
        outcome = plan.nothing ? { freedBytes: 0, snapshotId: null } : await runner.apply(contextOf(d), t, plan);
      }
      reason = outcome.detail ? `${plan.reason}; ${outcome.detail}` : plan.reason;
      freed = outcome.freedBytes;
      snapshotId = outcome.snapshotId;
      extra = plan.extra ?? {};
    }
  } catch (err) {
    status = 'failed';
    reason = isConflict(err) ? 'another writer committed twice while this run tried; the next run plans again' : (err as Error).message;
    d.logger.warn('maintenance run failed', { warehouse_id: ref.warehouseId, table: `${ref.namespace.join('.')}.${ref.table}`, kind, run_id: runId, err: (err as Error).message });
  }
  const measured = status === 'failed' ? null : await openTable(d, ref).then(figuresOf, () => null);
  const after = measured ? { ...measured, ...extra } : null;
  await finishRun(d.prisma, runId, { status, reason, after, freedBytes: freed, snapshotId });
  await auditRun(d, ref, { run_id: runId, kind, status, reason, trigger: job.trigger, freed_bytes: freed, snapshot_id: snapshotId?.toString() ?? null }, job);
  return { kind, run_id: runId, status, reason };
}

async function auditRun(d: Pick<Deps, 'prisma' | 'db'>, ref: TableRef, data: Record<string, unknown>, job: MaintenanceJob): Promise<void> {
  await writeAudit(d.db, null, {
    action: 'table.maintain', actorId: job.requested_by, actorKind: null, orgId: await orgOfWarehouse(d.prisma as PrismaClient, ref.warehouseId),
    targetType: 'table', targetId: `${ref.warehouseId}/${ref.namespace.join('.')}.${ref.table}`,
    data: { warehouse_id: ref.warehouseId, table: `${ref.namespace.join('.')}.${ref.table}`, ...data, ...(job.request_id ? { request_id: job.request_id } : {}) },
  });
}

/** A dry run: each kind's plan on the table as it is, nothing changed or recorded. */
export async function planTable(d: Deps, ref: TableRef, kinds: MaintenanceKind[]): Promise<Array<{ kind: MaintenanceKind; nothing: boolean; reason: string; would: Record<string, unknown> }>> {
  const t = await openTable(d, ref);
  const ctx = { ...contextOf(d), dryRun: true };
  const out = [];
  for (const kind of ordered(kinds)) {
    const runner = RUNNERS[kind];
    const plan = await runner.plan(ctx, t);
    out.push({ kind, nothing: plan.nothing, reason: plan.reason, would: plan.summary });
  }
  return out;
}
