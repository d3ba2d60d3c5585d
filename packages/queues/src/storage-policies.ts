import { defineJob, NoPayload } from './job';

// The storage-policy sweep: one job scheduler for the cluster, consumed by
// the teardown worker. Every catalog whose `storage_policy_version` is behind
// packages/storage's STORAGE_POLICY_VERSION has the current policies applied
// (buckets ignoring public ACLs, identities', uploaders' and the role's
// policies), so a deployment that tightens a policy reaches the catalogs made
// before it. Idempotent: a catalog done is not behind any more.

export const STORAGE_POLICY_QUEUE = 'storage-policies';
export const STORAGE_POLICY_SCHEDULER = 'storage-policies-pass';
/** BullMQ runs an `every` scheduler's first pass when it is made, then hourly. */
export const STORAGE_POLICY_EVERY_MS = 3600_000;

/** A pass that failed is not retried: the next one comes within the hour, and a catalog it missed is still behind. */
export const STORAGE_POLICY_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 100 } as const;

export const storagePolicyJobs = {
  pass: defineJob({ queue: STORAGE_POLICY_QUEUE, name: 'pass', payload: NoPayload, options: STORAGE_POLICY_JOB_OPTIONS }),
};
