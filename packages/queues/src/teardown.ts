import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { defineJob, NoPayload } from './job';
import type { Producers } from './producers';

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
 * Retried with backoff (a storage outage must not leave a catalog half torn
 * down): BullMQ waits 2 s × 2^(n-1) before retry n, so 16 attempts span about
 * 18 hours (25 would have spanned over a year). A job that used them up
 * fails and is queued again by the teardown sweep below. Completed jobs are
 * removed, so a catalog restored and deleted again queues a fresh one.
 */
export const TEARDOWN_JOB_OPTIONS: JobsOptions = {
  attempts: 16, backoff: { type: 'exponential', delay: 2000 }, removeOnComplete: true, removeOnFail: 1000,
};

export const teardownJobs = {
  teardown: defineJob({ queue: TEARDOWN_QUEUE, name: 'teardown', payload: TeardownJob, options: TEARDOWN_JOB_OPTIONS, jobId: (p) => teardownJobId(p.warehouse_id) }),
};

/** Queues a catalog's teardown, due when its grace period ends (`teardownAfter`). */
export async function queueTeardown(producers: Pick<Producers, 'enqueue'>, w: { id: string; teardownAfter: Date }): Promise<void> {
  await producers.enqueue(teardownJobs.teardown, { warehouse_id: w.id }, { delay: Math.max(0, w.teardownAfter.getTime() - Date.now()) });
}

// The teardown sweep: one job scheduler for the cluster, consumed by the
// teardown worker. A catalog past its grace period, still `deleting`, whose
// teardown job is neither waiting, delayed nor running (its retries used up,
// or the job lost with Redis) has its teardown queued again.
export const TEARDOWN_SWEEP_QUEUE = 'teardown-sweep';
export const TEARDOWN_SWEEP_SCHEDULER = 'teardown-sweep-pass';
export const TEARDOWN_SWEEP_EVERY_MS = 3600_000;

/** A pass that failed is not retried: the next one comes within the hour. */
export const TEARDOWN_SWEEP_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const teardownSweepJobs = {
  pass: defineJob({ queue: TEARDOWN_SWEEP_QUEUE, name: 'pass', payload: NoPayload, options: TEARDOWN_SWEEP_JOB_OPTIONS }),
};
