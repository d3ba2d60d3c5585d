import { Queue, Worker, type Job } from 'bullmq';
import { MAINTENANCE_QUEUE, MAINTENANCE_SWEEP_JOB_OPTIONS, MAINTENANCE_SWEEP_SCHEDULER, MaintenanceJob, MaintenanceKind } from '@floe/queues';
import { z } from 'zod';
import type { MaintenanceDeps } from './deps';
import { maintainTable, planTable } from './run-table';
import { sweepTables } from './sweep';

// The worker's one queue and its three kinds of job: `maintain` (one table's
// run, maintenance_runs), `plan` (a dry run, answered in the job's return
// value to the control plane waiting on it) and `sweep` (the cluster's hourly
// scheduler). Two jobs at a time per replica: runs are mostly waiting on the
// store and the catalog; a table's own lock keeps one run per table.

export const PlanJob = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.array(z.string().min(1)).min(1),
  table: z.string().min(1),
  kinds: z.array(MaintenanceKind).min(1),
});
export type PlanJob = z.infer<typeof PlanJob>;

async function handle(d: MaintenanceDeps, job: Job): Promise<unknown> {
  if (job.name === 'sweep') return sweepTables(d);
  if (job.name === 'plan') {
    const p = PlanJob.parse(job.data);
    return { kinds: await planTable(d, { warehouseId: p.warehouse_id, namespace: p.namespace, table: p.table }, p.kinds) };
  }
  return { kinds: await maintainTable(d, MaintenanceJob.parse(job.data), job.id ?? null) };
}

export async function startMaintenance(d: MaintenanceDeps): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(MAINTENANCE_QUEUE, { connection: d.connection, prefix: d.prefix });
  // A run's job lock is renewed every half lock while it works (the engine works on its own threads); a replica that
  // died leaves its job to another within about two stalled checks (2 × 15 s by default), rather than BullMQ's default minute.
  const lockMs = d.config.maintenance.jobLockSeconds * 1000;
  const worker = new Worker(MAINTENANCE_QUEUE, (job) => handle(d, job), {
    connection: d.connection, prefix: d.prefix, concurrency: 2, lockDuration: lockMs, stalledInterval: lockMs,
  });
  worker.on('failed', (job, err) => d.logger.error('job failed', { queue: MAINTENANCE_QUEUE, job_id: job?.id, job_name: job?.name, attempts: job?.attemptsMade, err: err.message }));
  await queue.upsertJobScheduler(MAINTENANCE_SWEEP_SCHEDULER, { every: d.config.maintenance.sweepSeconds * 1000 }, { name: 'sweep', opts: MAINTENANCE_SWEEP_JOB_OPTIONS });
  return { queue, worker };
}
