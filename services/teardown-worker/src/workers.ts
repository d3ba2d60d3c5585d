import { Worker } from 'bullmq';
import { QUEUES } from '@floe/queues';
import type { WorkerDeps } from './deps';

/** One BullMQ consumer per queue this worker owns. */
export function startWorkers(d: WorkerDeps): Worker[] {
  const opts = { connection: d.connection, prefix: d.prefix, concurrency: 4 };
  const workers = [
    new Worker(QUEUES.provisioning, async () => { /* filled by the provisioning job */ }, opts),
    new Worker(QUEUES.credentials, async () => { /* filled by the credential retirement job */ }, opts),
  ];
  for (const w of workers) {
    w.on('failed', (job, err) => d.logger.error('job failed', { queue: w.name, job_id: job?.id, err: err.message }));
  }
  return workers;
}
