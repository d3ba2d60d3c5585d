import type { Job } from 'bullmq';
import { meteringSweepJobs, sweepSlot } from '@floe/queues';
import { liveWarehouses } from '@floe/catalogs';
import type { MeteringDeps } from './deps';
import { catalogTraffic, trafficWindowStart } from './traffic';

// The sweep: a BullMQ job scheduler (one for the cluster, whichever replica
// upserts it) ticks every FLOE_METERING_SWEEP_SECONDS; its `sweep` job fans
// out one `measure` job per live catalog onto the `metering-sweep` queue,
// with a job id from the catalog and the sweep slot, so a retried fan-out or
// a second replica adds nothing. The fan-out reads RGW's usage log once for
// every bucket and hands each catalog its hours.

export async function fanOut(d: Pick<MeteringDeps, 'prisma' | 'storage' | 'logger' | 'producers' | 'config'>, job: Job): Promise<string> {
  const slot = sweepSlot(job.timestamp + (job.opts.delay ?? 0), d.config.metering.sweepSeconds);
  const catalogs = await liveWarehouses(d.prisma);
  const since = trafficWindowStart(new Date());
  const perBucket = await d.storage.bucketTraffic(since).catch((err: Error) => {
    d.logger.warn('the usage log did not answer; this sweep\'s samples carry no traffic', { err: err.message });
    return null;
  });
  await d.producers.enqueueMany(meteringSweepJobs.measure, catalogs.map((w) => ({
    warehouse_id: w.id, source: 'sweep' as const, slot, traffic: perBucket && catalogTraffic(perBucket, [w.tableBucket, w.blobBucket], since),
  })));
  return `slot ${slot}: ${catalogs.length} catalogs queued`;
}
