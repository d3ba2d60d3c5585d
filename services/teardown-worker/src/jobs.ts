import {
  credentialJobs, handle, ORG_ERASURE_EVERY_MS, ORG_ERASURE_SCHEDULER, orgErasureJobs,
  provisioningJobs, schedule, startJobRunner, STORAGE_POLICY_EVERY_MS, STORAGE_POLICY_SCHEDULER, storagePolicyJobs, teardownJobs,
  TEARDOWN_SWEEP_EVERY_MS, TEARDOWN_SWEEP_SCHEDULER, teardownSweepJobs, UPLOADER_EXPIRY_SCHEDULER, UPLOADER_EXPIRY_SWEEP_MS, uploaderExpiryJobs,
  type JobRunner,
} from '@floe/queues';
import type { WorkerDeps } from './deps';
import { deleteAbandonedCatalog, eraseAbandonedOrganizations } from './org-erasure';
import { retryProvisioning } from './provisioning';
import { retireCredential } from './retire-credential';
import { applyCurrentStoragePolicies } from './storage-policies';
import { teardownWarehouse } from './teardown';
import { sweepStuckTeardowns } from './teardown-sweep';
import { expireDueUploaders, expireUploader } from './uploader-expiry';

// The teardown worker's jobs and the cluster's schedulers it upserts, in one
// runner. Probes and retirements four at a time; teardowns one at a time (the
// queue in turn), with a short lock so a worker killed mid-job is taken over
// soon; the hourly passes one at a time.

const ONE = { concurrency: 1 };

export function startTeardownJobs(d: WorkerDeps): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(provisioningJobs.probe, (p, { job }) => retryProvisioning(d, p, job.id), { concurrency: 4 }),
      handle(credentialJobs.retire, (p) => retireCredential(d, p), { concurrency: 4 }),
      handle(teardownJobs.teardown, (p, { job, token }) => teardownWarehouse(d, p, job, token), { concurrency: 1, lockDuration: 10_000, stalledInterval: 5_000 }),
      handle(teardownSweepJobs.pass, () => sweepStuckTeardowns(d), ONE),
      handle(uploaderExpiryJobs.expire, async (p) => ((await expireUploader(d, p.uploader_id)) ? 'expired' : 'nothing to do'), { concurrency: 2 }),
      handle(uploaderExpiryJobs.sweep, () => expireDueUploaders(d), { concurrency: 2 }),
      handle(storagePolicyJobs.pass, () => applyCurrentStoragePolicies(d), ONE),
      handle(orgErasureJobs.pass, () => eraseAbandonedOrganizations({ ...d, deleteCatalog: (id) => deleteAbandonedCatalog(d, id) }), ONE),
    ],
    schedulers: [
      schedule(teardownSweepJobs.pass, { id: TEARDOWN_SWEEP_SCHEDULER, every: TEARDOWN_SWEEP_EVERY_MS }),
      schedule(uploaderExpiryJobs.sweep, { id: UPLOADER_EXPIRY_SCHEDULER, every: UPLOADER_EXPIRY_SWEEP_MS }),
      schedule(storagePolicyJobs.pass, { id: STORAGE_POLICY_SCHEDULER, every: STORAGE_POLICY_EVERY_MS }),
      schedule(orgErasureJobs.pass, { id: ORG_ERASURE_SCHEDULER, every: ORG_ERASURE_EVERY_MS }),
    ],
  });
}
