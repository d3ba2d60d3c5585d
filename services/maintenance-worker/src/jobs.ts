import { handle, maintenanceJobs, MAINTENANCE_SWEEP_SCHEDULER, schedule, startJobRunner, type JobRunner } from '@floe/queues';
import type { MaintenanceDeps } from './deps';
import { maintainTable, planTable } from './run-table';
import { sweepTables } from './sweep';

// The worker's one queue and its three kinds of job: `maintain` (one table's
// run, maintenance_runs), `plan` (a dry run, answered in the job's return
// value to the control plane waiting on it) and `sweep` (the cluster's hourly
// scheduler). Two jobs at a time per replica: runs are mostly waiting on the
// store and the catalog; a table's own lock keeps one run per table.

export function startMaintenanceJobs(d: MaintenanceDeps): JobRunner {
  // A run's job lock is renewed every half lock while it works (the engine works on its own threads); a replica that
  // died leaves its job to another within about two stalled checks (2 × 15 s by default), rather than BullMQ's default minute.
  const lockMs = d.config.maintenance.jobLockSeconds * 1000;
  const queue = { concurrency: 2, lockDuration: lockMs, stalledInterval: lockMs };
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(maintenanceJobs.maintain, async (p, { job }) => ({ kinds: await maintainTable(d, p, job.id ?? null) }), queue),
      handle(maintenanceJobs.plan, async (p) => ({ kinds: await planTable(d, { warehouseId: p.warehouse_id, namespace: p.namespace, table: p.table }, p.kinds) }), queue),
      handle(maintenanceJobs.sweep, () => sweepTables(d), queue),
    ],
    schedulers: [schedule(maintenanceJobs.sweep, { id: MAINTENANCE_SWEEP_SCHEDULER, every: d.config.maintenance.sweepSeconds * 1000 })],
  });
}
