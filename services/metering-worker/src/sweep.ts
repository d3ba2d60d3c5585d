import { Queue, Worker, type Job } from 'bullmq';
import {
  METERING_QUEUE, METERING_SWEEP_SCHEDULER, SWEEP_JOB_OPTIONS, SWEEP_MEASURE_JOB_OPTIONS, sweepMeasureJobId, sweepSlot, type MeasureJob,
} from '@floe/queues';
import type { MeteringDeps } from './deps';
import { measureCatalog } from './measure';
import { liveWarehouses } from './store/warehouses';
import { catalogTraffic, trafficWindowStart } from './traffic';

// The sweep: a BullMQ job scheduler (one for the cluster, whichever replica
// upserts it) ticks every FLOE_METERING_SWEEP_SECONDS; its `sweep` job fans
// out one `measure` job per live catalog, with a job id from the catalog and
// the sweep slot, so a retried fan-out or a second replica adds nothing. The
// fan-out reads RGW's usage log once for every bucket and hands each catalog
// its hours.

export async function fanOut(d: MeteringDeps, queue: Queue, job: Job): Promise<string> {
  const slot = sweepSlot(job.timestamp + (job.opts.delay ?? 0), d.config.metering.sweepSeconds);
  const catalogs = await liveWarehouses(d.prisma);
  const since = trafficWindowStart(new Date());
  const perBucket = await d.storage.bucketTraffic(since).catch((err: Error) => {
    d.logger.warn('the usage log did not answer; this sweep\'s samples carry no traffic', { err: err.message });
    return null;
  });
  await queue.addBulk(catalogs.map((w) => {
    const data: MeasureJob = {
      warehouse_id: w.id, source: 'sweep', slot, traffic: perBucket && catalogTraffic(perBucket, [w.tableBucket, w.blobBucket], since),
    };
    return { name: 'measure', data, opts: { ...SWEEP_MEASURE_JOB_OPTIONS, jobId: sweepMeasureJobId(w.id, slot) } };
  }));
  return `slot ${slot}: ${catalogs.length} catalogs queued`;
}

/** Upserts the cluster's sweep scheduler and consumes the queue's two kinds of job. */
export async function startMetering(d: MeteringDeps): Promise<{ queue: Queue; worker: Worker }> {
  const queue = new Queue(METERING_QUEUE, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(METERING_QUEUE, (job) => (job.name === 'sweep' ? fanOut(d, queue, job) : measureCatalog(d, job)), {
    connection: d.connection, prefix: d.prefix, concurrency: 4,
  });
  worker.on('failed', (job, err) => d.logger.error('job failed', { queue: METERING_QUEUE, job_id: job?.id, attempts: job?.attemptsMade, err: err.message }));
  await queue.upsertJobScheduler(METERING_SWEEP_SCHEDULER, { every: d.config.metering.sweepSeconds * 1000 }, { name: 'sweep', opts: SWEEP_JOB_OPTIONS });
  return { queue, worker };
}
