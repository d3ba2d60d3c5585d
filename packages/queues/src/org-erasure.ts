import { defineJob, NoPayload } from './job';

// The erasure of organisations left without members (DELETE /v1/me marks
// them `deleting`): one job scheduler for the cluster, hourly, well within
// the spec's 30 days. A pass that fails is not retried; the next one comes.

export const ORG_ERASURE_QUEUE = 'org-erasure';

/** The one scheduler of the pass, whichever teardown worker upserts it. */
export const ORG_ERASURE_SCHEDULER = 'org-erasure-pass';

export const ORG_ERASURE_EVERY_MS = 3_600_000;

export const ORG_ERASURE_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const orgErasureJobs = {
  pass: defineJob({ queue: ORG_ERASURE_QUEUE, name: 'pass', payload: NoPayload, options: ORG_ERASURE_JOB_OPTIONS }),
};
