import type { Job } from 'bullmq';
import { PROVISIONING_RETRY_SECONDS, ProvisioningJob, QUEUES, type Producers } from '@floe/queues';
import { probeWarehouse } from '@floe/storage';
import type { WorkerDeps } from './deps';
import { markProvisioned, provisioningView } from './store/warehouses';

// A warehouse whose storage probe was refused at creation stays
// `provisioning`; this job probes again every 30 s until the store accepts a
// write (→ ready) or the 10-minute window has passed.

export async function retryProvisioning(d: WorkerDeps, producers: Producers, job: Job): Promise<string> {
  const data = ProvisioningJob.parse(job.data);
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
  const attempt = Number(/-a(\d+)$/.exec(job.id ?? '')?.[1] ?? 0);
  await producers.add(QUEUES.provisioning, 'probe', data, {
    jobId: `provision-${data.warehouse_id}-a${attempt + 1}`, delay: PROVISIONING_RETRY_SECONDS * 1000,
    // A database or Redis hiccup must not end the chain of probes early.
    attempts: 5, backoff: { type: 'exponential', delay: 2000 },
  });
  return 'retry queued';
}
