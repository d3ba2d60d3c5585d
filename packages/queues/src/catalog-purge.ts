import { defineJob, NoPayload } from './job';

// The catalog's purge pass: one job scheduler for the cluster. Every pass
// finishes the purges nobody holds (each claimed with SKIP LOCKED, so a pass
// on any catalog replica is safe); a pass that fails is not retried, the next
// comes within its interval and a lapsed claim is taken over.

export const CATALOG_PURGE_QUEUE = 'catalog-purge';

/** The one scheduler of the pass, whichever catalog replica upserts it. */
export const CATALOG_PURGE_SCHEDULER = 'catalog-purge-pass';

/** How often a pass runs. */
export const CATALOG_PURGE_EVERY_MS = 2_000;

export const CATALOG_PURGE_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const catalogPurgeJobs = {
  pass: defineJob({ queue: CATALOG_PURGE_QUEUE, name: 'pass', payload: NoPayload, options: CATALOG_PURGE_JOB_OPTIONS }),
};
