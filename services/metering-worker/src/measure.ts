import type { MeasureJob, TrafficHour, UsageReport } from '@floe/queues';
import { StorageError } from '@floe/storage';
import { liveWarehouse } from '@floe/catalogs';
import { reportUsage } from './control-plane-client';
import type { MeteringDeps } from './deps';
import { enforceScope } from './enforcement';
import { catalogTraffic, trafficWindowStart } from './traffic';

// The `measure` job of one catalog (packages/queues/src/metering.ts): RGW's
// admin bucket stats, one call per bucket (its own counters — never a
// listing, so the cost does not grow with objects); the usage log's traffic;
// the report to the control plane, which writes the sample; then the scope's
// enforcement pass. A retry measures again and its report rewrites the
// job's one sample (keyed by the job id): a retried job adds no second sample.

const bucketOrAbsent = async <T>(step: Promise<T>): Promise<T | null> =>
  step.catch((err: unknown) => {
    if (err instanceof StorageError && err.kind === 'not_found') return null;
    throw err;
  });

/** `jobKey` is the job's id: the sample's key. */
export async function measureCatalog(d: MeteringDeps, data: MeasureJob, jobKey: string): Promise<string> {
  const w = await liveWarehouse(d.prisma, data.warehouse_id);
  if (!w) return 'not live';

  // measure
  const measuredAt = new Date();
  const [table, blob] = await Promise.all([d.storage.bucketReport(w.tableBucket), bucketOrAbsent(d.storage.bucketReport(w.blobBucket))]);
  const traffic = data.traffic !== undefined ? data.traffic : await ownTraffic(d, [w.tableBucket, w.blobBucket], measuredAt);

  // report: the control plane writes the sample and answers the scope's standing
  const report: UsageReport = {
    warehouse_id: w.id, source: data.source, measured_at: measuredAt.toISOString(),
    stale_after: new Date(measuredAt.getTime() + 2 * d.config.metering.sweepSeconds * 1000).toISOString(),
    table: { bytes: table.bytes, objects: table.objects }, blob: blob && { bytes: blob.bytes, objects: blob.objects },
    complete: true, traffic, job_key: jobKey,
  };
  const answer = await reportUsage({ replicas: d.controlPlane, secret: d.config.bootstrapSecret ?? '' }, report);
  // The fault tests' hook (FLOE_METERING_CRASH_AT, tests/fault/metering-crash.test.ts): the process ends
  // with the sample written and the job unfinished, so the job is taken again and must add no second sample.
  if (d.config.metering.crashAt === 'after_report') process.exit(86);
  if (!answer.recorded) return 'not live';

  // enforce
  const quotas = new Map([[w.tableBucket, table.quota], ...(blob ? [[w.blobBucket, blob.quota] as const] : [])]);
  const done = await enforceScope(d, answer, { id: w.id, quotas });
  return `measured ${table.bytes + (blob?.bytes ?? 0)} bytes; frozen ${done.frozen.length}, lifted ${done.lifted.length}`;
}

/** A creation job reads its own buckets' usage log; null when the log does not answer (the sample then carries no counters). */
async function ownTraffic(d: MeteringDeps, buckets: string[], now: Date): Promise<TrafficHour[] | null> {
  const since = trafficWindowStart(now);
  try {
    const perBucket = new Map();
    for (const b of buckets) for (const [k, v] of await d.storage.bucketTraffic(since, b)) perBucket.set(k, v);
    return catalogTraffic(perBucket, buckets, since);
  } catch (err) {
    d.logger.warn('the usage log did not answer', { buckets, err: (err as Error).message });
    return null;
  }
}
