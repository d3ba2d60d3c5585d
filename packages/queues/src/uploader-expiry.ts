import { z } from 'zod';
import { defineJob, NoPayload } from './job';

// Uploader expiry (spec: an `active` uploader becomes `expired` at its
// `expires_at`, and its key stops). Two ways into one idempotent handler in
// the teardown worker: a delayed `expire` job per uploader, queued at
// creation for its `expires_at` (the exact time), and a `sweep` job scheduler
// for the cluster that expires whatever is past due (a job lost with Redis, a
// worker that was down). Expiring twice does nothing the second time.

export const UPLOADER_EXPIRY_QUEUE = 'uploader-expiry';

/** The one scheduler of the sweep, whichever teardown worker upserts it. */
export const UPLOADER_EXPIRY_SCHEDULER = 'uploader-expiry-sweep';
export const UPLOADER_EXPIRY_SWEEP_MS = 300_000;

export const ExpireUploaderJob = z.object({ uploader_id: z.string().min(1) });
export type ExpireUploaderJob = z.infer<typeof ExpireUploaderJob>;

/** One expiry job per uploader: a retried create queues nothing twice. */
export const expireUploaderJobId = (uploaderId: string): string => `expire-${uploaderId}`;

export const UPLOADER_EXPIRY_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 1000, attempts: 10, backoff: { type: 'exponential', delay: 2000 } } as const;

/** A sweep that failed is not retried: the next one comes within its interval. */
export const UPLOADER_SWEEP_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const uploaderExpiryJobs = {
  expire: defineJob({ queue: UPLOADER_EXPIRY_QUEUE, name: 'expire', payload: ExpireUploaderJob, options: UPLOADER_EXPIRY_JOB_OPTIONS, jobId: (p) => expireUploaderJobId(p.uploader_id) }),
  sweep: defineJob({ queue: UPLOADER_EXPIRY_QUEUE, name: 'sweep', payload: NoPayload, options: UPLOADER_SWEEP_JOB_OPTIONS }),
};
