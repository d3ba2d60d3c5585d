import { Queue, Worker } from 'bullmq';
import { OAUTH_PRUNE_EVERY_MS, OAUTH_PRUNE_JOB_OPTIONS, OAUTH_PRUNE_QUEUE, OAUTH_PRUNE_SCHEDULER } from '@floe/queues';
import type { WorkerDeps } from './deps';
import { pruneOAuth } from './store/oauth';

// packages/queues/src/oauth-prune.ts: the cluster's OAuth housekeeping pass.

/** Upserts the pass's scheduler and consumes it. */
export async function startOAuthPrune(d: WorkerDeps): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(OAUTH_PRUNE_QUEUE, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(OAUTH_PRUNE_QUEUE, async () => {
    const pruned = await pruneOAuth(d.prisma);
    if (Object.values(pruned).some((n) => n > 0)) d.logger.info('oauth pruned', { ...pruned });
    return pruned;
  }, { connection: d.connection, prefix: d.prefix, concurrency: 1 });
  worker.on('failed', (job, err) => d.logger.error('job failed', { queue: OAUTH_PRUNE_QUEUE, job_id: job?.id, err: err.message }));
  await queue.upsertJobScheduler(OAUTH_PRUNE_SCHEDULER, { every: OAUTH_PRUNE_EVERY_MS }, { name: 'pass', opts: OAUTH_PRUNE_JOB_OPTIONS });
  return { queue, worker };
}
