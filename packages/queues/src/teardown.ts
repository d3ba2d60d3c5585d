import type { JobsOptions } from 'bullmq';
import { z } from 'zod';

// Catalog teardown: one job per deleted catalog, queued by its deletion and
// delayed by the grace period (FLOE_WAREHOUSE_DELETE_GRACE_SECONDS), consumed
// by the teardown worker one at a time. The job id is the catalog's, so the
// twenty requests of a deletion race queue one teardown; a restore removes it.

export const TEARDOWN_QUEUE = 'teardown';

/** Tear down one catalog once its grace period is over. */
export const TeardownJob = z.object({ warehouse_id: z.string().min(1) });
export type TeardownJob = z.infer<typeof TeardownJob>;

export const teardownJobId = (warehouseId: string): string => `teardown-${warehouseId}`;

/**
 * Retried with backoff for about a day (a storage outage must not leave a
 * catalog half torn down); completed jobs are removed, so a catalog restored
 * and deleted again queues a fresh one.
 */
export const TEARDOWN_JOB_OPTIONS: JobsOptions = {
  attempts: 25, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: 1000,
};

/** Queues a catalog's teardown, due when its grace period ends (`teardownAfter`). */
/** What queueing needs of the Producers (index.ts), named here so this module does not import the index that re-exports it. */
type TeardownProducer = { add(name: typeof TEARDOWN_QUEUE, jobName: string, data: unknown, opts: JobsOptions & { jobId: string }): Promise<void> };

export async function queueTeardown(producers: TeardownProducer, w: { id: string; teardownAfter: Date }): Promise<void> {
  await producers.add(TEARDOWN_QUEUE, 'teardown', { warehouse_id: w.id } satisfies TeardownJob, {
    ...TEARDOWN_JOB_OPTIONS, jobId: teardownJobId(w.id), delay: Math.max(0, w.teardownAfter.getTime() - Date.now()),
  });
}
