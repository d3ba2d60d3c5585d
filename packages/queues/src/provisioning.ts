import { z } from 'zod';
import { defineJob } from './job';

// The `provisioning` queue: a warehouse whose storage probe was refused at
// creation is probed again every 30 s until the store accepts a write or the
// 10-minute window has passed (the spec). Each probe that fails queues the
// next, a new job with the attempt in its id; the control plane queues the
// first, the teardown worker consumes them.

export const PROVISIONING_QUEUE = 'provisioning';

/** Retry a warehouse's storage probe until it passes or `until` (ISO) has gone by. */
export const ProvisioningJob = z.object({ warehouse_id: z.string(), until: z.string() });
export type ProvisioningJob = z.infer<typeof ProvisioningJob>;

/** Seconds between provisioning attempts, and how long they go on (the spec: every 30 s for 10 minutes). */
export const PROVISIONING_RETRY_SECONDS = 30;
export const PROVISIONING_WINDOW_SECONDS = 600;

/** A probe's job id: the first one's names the warehouse, each later one its attempt too (`-a1`, `-a2`, …). */
export const provisioningJobId = (warehouseId: string, attempt = 0): string =>
  attempt === 0 ? `provision-${warehouseId}` : `provision-${warehouseId}-a${attempt}`;

/** The attempt a probe's job id names; 0 for the first (or an id without one). */
export const provisioningAttempt = (jobId: string | undefined): number => Number(/-a(\d+)$/.exec(jobId ?? '')?.[1] ?? 0);

/** A later probe is retried: a database or Redis hiccup must not end the chain of probes early. */
export const PROBE_RETRY_JOB_OPTIONS = { attempts: 5, backoff: { type: 'exponential', delay: 2000 } } as const;

export const provisioningJobs = {
  probe: defineJob({
    queue: PROVISIONING_QUEUE, name: 'probe', payload: ProvisioningJob,
    options: { delay: PROVISIONING_RETRY_SECONDS * 1000 },
    jobId: (p) => provisioningJobId(p.warehouse_id),
  }),
};
