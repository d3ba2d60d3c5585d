import { PROBE_RETRY_JOB_OPTIONS, provisioningAttempt, provisioningJobId, provisioningJobs, type ProvisioningJob } from '@floe/queues';
import { probeWarehouse } from '@floe/storage';
import { markProvisioned, provisioningView } from '@floe/catalogs';
import type { WorkerDeps } from './deps';

// A warehouse whose storage probe was refused at creation stays
// `provisioning`; this job probes again every 30 s until the store accepts a
// write (→ ready) or the 10-minute window has passed.

/** `jobId` is this probe's: the next one's names the next attempt. */
export async function retryProvisioning(d: WorkerDeps, data: ProvisioningJob, jobId: string | undefined): Promise<string> {
  const w = await provisioningView(d.prisma, data.warehouse_id);
  if (!w || w.status !== 'provisioning') return 'nothing to do';
  const rw = { accessKeyId: w.storageAccessKey, secretAccessKey: d.keyring.open(w.storageSecretKey) };
  const probe = await probeWarehouse(d.storage, rw, w);
  if (probe.ok) {
    await markProvisioned(d.prisma, data.warehouse_id);
    d.logger.info('warehouse ready after provisioning retry', { warehouse_id: data.warehouse_id });
    return 'ready';
  }
  if (Date.now() >= Date.parse(data.until)) {
    d.logger.warn('warehouse still refused by the store after the provisioning window', { warehouse_id: data.warehouse_id, buckets: probe.buckets });
    return 'gave up';
  }
  await d.producers.enqueue(provisioningJobs.probe, data, {
    ...PROBE_RETRY_JOB_OPTIONS, jobId: provisioningJobId(data.warehouse_id, provisioningAttempt(jobId) + 1),
  });
  return 'retry queued';
}
