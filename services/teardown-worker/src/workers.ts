import { Worker } from 'bullmq';
import { Producers, QUEUES } from '@floe/queues';
import type { WorkerDeps } from './deps';
import { retryProvisioning } from './provisioning';
import { retireCredential } from './retire-credential';
import { teardownWarehouse } from './teardown';

/** One BullMQ consumer per queue this worker owns. */
export function startWorkers(d: WorkerDeps): { workers: Worker[]; producers: Producers } {
  const opts = { connection: d.connection, prefix: d.prefix, concurrency: 4 };
  const producers = new Producers(d.connection, d.prefix);
  const workers = [
    new Worker(QUEUES.provisioning, (job) => retryProvisioning(d, producers, job), opts),
    new Worker(QUEUES.credentials, (job) => retireCredential(d, job), opts),
    // One teardown at a time (the queue in turn); a short lock, so a worker killed mid-job is taken over soon.
    new Worker(QUEUES.teardown, (job, token) => teardownWarehouse(d, job, token), { ...opts, concurrency: 1, lockDuration: 10_000, stalledInterval: 5_000 }),
  ];
  for (const w of workers) {
    w.on('failed', (job, err) => d.logger.error('job failed', { queue: w.name, job_id: job?.id, attempts: job?.attemptsMade, err: err.message }));
  }
  return { workers, producers };
}
