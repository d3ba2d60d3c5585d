import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineJob, NoPayload } from './job';

// The `maintenance` queue (services/maintenance-worker): table maintenance
// runs. One `maintain` job per table at a time — its job id names the table,
// so a second request while one waits joins it instead of queuing another —
// from a person or token asking (POST /v1/table/maintenance), the hourly
// sweep's scheduler, or a writer that saw a table cross a rule (the roller).
// A `plan` job answers a dry run: what a run would do, changing nothing.

export const MAINTENANCE_QUEUE = 'maintenance';

/**
 * What every catalog promises (its create answer's `maintenance`, spec:
 * Warehouse fields and Limits) and the worker keeps: the one home of these
 * numbers.
 */
export const MAINTENANCE_DEFAULTS = {
  compaction: true,
  target_file_size_mb: 128,
  snapshot_retention_days: 7,
  max_snapshots: 20,
  disableable: false,
} as const;
export const MAINTENANCE_SWEEP_SCHEDULER = 'maintenance-sweep';

/**
 * The kinds of run (Iceberg's own maintenance operations), in the order a run
 * does them: compaction and the manifest rewrite first, since each commits a
 * snapshot, then expiry — so a run leaves at most the snapshots the table
 * keeps — then the metadata files and the orphans the others left.
 */
export const MAINTENANCE_KINDS = ['compact', 'rewrite_manifests', 'expire_snapshots', 'clean_metadata', 'remove_orphans'] as const;
export const MaintenanceKind = z.enum(MAINTENANCE_KINDS);
export type MaintenanceKind = z.infer<typeof MaintenanceKind>;

/** Why a run happens: a rule a table crossed (with its inputs in words), the hourly sweep, or someone asking. */
export const MaintenanceTrigger = z.object({
  type: z.enum(['rule', 'sweep', 'manual']),
  detail: z.string().max(500),
});
export type MaintenanceTrigger = z.infer<typeof MaintenanceTrigger>;

export const MaintenanceJob = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.array(z.string().min(1)).min(1),
  table: z.string().min(1),
  kinds: z.array(MaintenanceKind).min(1),
  trigger: MaintenanceTrigger,
  /** The principal who asked (manual runs); null for the sweep and rules. */
  requested_by: z.string().nullable(),
  request_id: z.string().nullable().optional(),
});
export type MaintenanceJob = z.infer<typeof MaintenanceJob>;

/** A dry run: the kinds a run of the table would do, planned on the table as it is now. */
export const PlanJob = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.array(z.string().min(1)).min(1),
  table: z.string().min(1),
  kinds: z.array(MaintenanceKind).min(1),
});
export type PlanJob = z.infer<typeof PlanJob>;

/** One waiting run per table: the job id is the table's, so a duplicate enqueue adds nothing. */
export const maintenanceJobId = (warehouseId: string, namespace: string[], table: string): string =>
  `maintain-${warehouseId}-${Buffer.from(JSON.stringify([namespace, table])).toString('base64url')}`;

/**
 * A failed job is removed too: its job id is the table's, and BullMQ ignores
 * an add whose id is kept in any state, so a kept failure would drop every
 * later request, rule and sweep for the table. The failure is recorded in
 * maintenance_runs and the worker's log.
 */
export const MAINTENANCE_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true, attempts: 2, backoff: { type: 'exponential', delay: 5000 } } as const;

/** A dry run's job: answered in its return value, never retried (the asker waits for it). */
export const PLAN_JOB_OPTIONS = { removeOnComplete: { age: 300 }, removeOnFail: { age: 300 }, attempts: 1 } as const;

/** A sweep that failed is not retried: the next one comes within its interval. */
export const MAINTENANCE_SWEEP_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 100 } as const;

export const maintenanceJobs = {
  maintain: defineJob({
    queue: MAINTENANCE_QUEUE, name: 'maintain', payload: MaintenanceJob, options: MAINTENANCE_JOB_OPTIONS,
    jobId: (p) => maintenanceJobId(p.warehouse_id, p.namespace, p.table),
  }),
  /** Each dry run is its own: its asker waits for that job's answer. */
  plan: defineJob({ queue: MAINTENANCE_QUEUE, name: 'plan', payload: PlanJob, options: PLAN_JOB_OPTIONS, jobId: () => `plan-${randomBytes(8).toString('hex')}` }),
  sweep: defineJob({ queue: MAINTENANCE_QUEUE, name: 'sweep', payload: NoPayload, options: MAINTENANCE_SWEEP_JOB_OPTIONS }),
};
