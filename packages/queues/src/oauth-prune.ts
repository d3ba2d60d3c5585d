import { defineJob, NoPayload } from './job';

// The OAuth authorization server's housekeeping (spec: "Registrations unused
// for 90 days are pruned"): one job scheduler for the cluster, consumed by
// identity (services/identity/src/jobs.ts), removes dynamic registrations nobody has used for 90 days
// and the consent requests, codes and refresh families that can no longer do
// anything, and the retired refresh hashes of login sessions that ended over
// 30 days ago. Idempotent: a second pass finds nothing.

export const OAUTH_PRUNE_QUEUE = 'oauth-prune';
export const OAUTH_PRUNE_SCHEDULER = 'oauth-prune-pass';
export const OAUTH_PRUNE_EVERY_MS = 6 * 3600_000;

/** A pass that failed is not retried: the next one comes within its interval. */
export const OAUTH_PRUNE_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const oauthPruneJobs = {
  pass: defineJob({ queue: OAUTH_PRUNE_QUEUE, name: 'pass', payload: NoPayload, options: OAUTH_PRUNE_JOB_OPTIONS }),
};
