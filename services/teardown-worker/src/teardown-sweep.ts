import type { PrismaClient } from '@floe/db';
import type { Logger } from '@floe/http';
import { QUEUES, queueTeardown, teardownJobId, type Producers } from '@floe/queues';
import { deletionsPastGrace } from '@floe/catalogs';

// The teardown sweep (packages/queues/src/teardown.ts). A teardown job that
// used up its retries fails for good, and a job can be lost with Redis:
// either would leave the catalog `deleting` for ever, its tombstone showing
// the last `teardown_error` and nothing retrying. Every hour the sweep finds
// catalogs past their grace period, still `deleting`, whose teardown job is
// neither waiting, delayed nor running, logs each at error level and queues
// its teardown again (a fresh job, full retries). A cause that went away ends
// in a teardown without anyone acting; one that stays is logged every hour.

/** Job states in which the teardown will still run by itself. */
const UNDER_WAY = new Set(['waiting', 'delayed', 'active', 'prioritized', 'waiting-children']);

export interface SweepDeps {
  prisma: PrismaClient;
  logger: Logger;
  producers: Producers;
}

/** One pass: the ids of the catalogs whose teardown it queued again. */
export async function sweepStuckTeardowns(d: SweepDeps): Promise<string[]> {
  const queued: string[] = [];
  for (const w of await deletionsPastGrace(d.prisma)) {
    const jobId = teardownJobId(w.id);
    const state = await d.producers.state(QUEUES.teardown, jobId);
    if (UNDER_WAY.has(state)) continue;
    d.logger.error('catalog teardown stuck: queued again', {
      warehouse_id: w.id, name: w.name, job_state: state, teardown_step: w.step, teardown_error: w.teardownError,
    });
    // A failed job keeps its id, and a job id is added once: the failed one goes first.
    await d.producers.remove(QUEUES.teardown, jobId);
    await queueTeardown(d.producers, w);
    queued.push(w.id);
  }
  return queued;
}
