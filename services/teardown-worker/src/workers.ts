import { Worker } from 'bullmq';
import { Producers, QUEUES } from '@floe/queues';
import type { WorkerDeps } from './deps';
import { retryProvisioning } from './provisioning';
import { retireCredential } from './retire-credential';

/** One BullMQ consumer per queue this worker owns. */
export function startWorkers(d: WorkerDeps): { workers: Worker[]; producers: Producers } {
  const opts = { connection: d.connection, prefix: d.prefix, concurrency: 4 };
  const producers = new Producers(d.connection, d.prefix);
  const workers = [
    new Worker(QUEUES.provisioning, (job) => retryProvisioning(d, producers, job), opts),
    new Worker(QUEUES.credentials, (job) => retireCredential(d, job), opts),
  ];
  for (const w of workers) {
    w.on('failed', (job, err) => d.logger.error('job failed', { queue: w.name, job_id: job?.id, attempts: job?.attemptsMade, err: err.message }));
  }
  return { workers, producers };
}
