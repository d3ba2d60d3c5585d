import { z } from 'zod';
import { defineJob, NoPayload } from './job';

// Metering's two queues (docs/architecture.md), both consumed by the metering
// worker; any number of replicas may run. `metering` holds the cluster's
// `sweep` scheduler and its fan-out, and the measurements asked for one
// catalog: queued delayed by the control plane when it creates a catalog (the
// first sample, FLOE_METERING_FIRST_SAMPLE_SECONDS later), or at once when it
// restores one (its samples went with the deletion). `metering-sweep` holds
// the fan-out's measurement of every live catalog, every
// FLOE_METERING_SWEEP_SECONDS. A queue of its own, not a BullMQ priority: the
// worker takes each queue with its own concurrency, so a first sample never
// waits behind a sweep of thousands of catalogs, and both queues' waiting
// lists are plain Redis lists the autoscaler reads (k8s/metering-worker.yaml;
// prioritized jobs wait in a sorted set it cannot see).

export const METERING_QUEUE = 'metering';
export const METERING_SWEEP_QUEUE = 'metering-sweep';

/** The one scheduler of the sweep (on the `metering` queue, with its fan-out), whichever metering worker upserts it. */
export const METERING_SWEEP_SCHEDULER = 'metering-sweep';

/** Which path queued a measurement; the sample records it (`on_demand` is the control plane's own measure route). */
export const MeasureSource = z.enum(['sweep', 'creation']);
export type MeasureSource = z.infer<typeof MeasureSource>;

/** A catalog's traffic in one UTC hour (both buckets), from RGW's usage log. */
export const TrafficHour = z.object({
  hour: z.iso.datetime(), requests: z.number().int().nonnegative(), bytes_in: z.number().int().nonnegative(), bytes_out: z.number().int().nonnegative(),
});
export type TrafficHour = z.infer<typeof TrafficHour>;

/**
 * Measure one catalog. A sweep's job carries the catalog's traffic hours
 * (the fan-out reads the usage log once for every bucket; null when it did
 * not answer); a creation job has none and reads its own buckets' log.
 */
export const MeasureJob = z.object({
  warehouse_id: z.string().min(1), source: MeasureSource, slot: z.number().int().nonnegative().optional(), traffic: z.array(TrafficHour).nullable().optional(),
  /**
   * A restore's first sample: the restore's time. Its source is `creation`
   * (the catalog's samples begin again, as a new catalog's do), its id is
   * the restore's, so each restore measures once and the creation's job id
   * (kept by BullMQ after it ran) does not swallow it.
   */
  restored_at: z.iso.datetime().optional(),
});
export type MeasureJob = z.infer<typeof MeasureJob>;

/** A sweep's measurement: its slot is its key. */
export const SweepMeasureJob = MeasureJob.extend({ source: z.literal('sweep'), slot: z.number().int().nonnegative() });
export type SweepMeasureJob = z.infer<typeof SweepMeasureJob>;

/**
 * The sweep slot a scheduled job belongs to: its due time in whole
 * intervals. Rounded, not floored, so a job due a few ms early or late keeps
 * its slot; two replicas fanning out one tick compute the same slot.
 */
export function sweepSlot(dueAtMs: number, everySeconds: number): number {
  return Math.round(dueAtMs / (everySeconds * 1000));
}

/** One measurement per catalog per sweep slot: a retried fan-out, or a second replica's, adds nothing. */
export const sweepMeasureJobId = (warehouseId: string, slot: number): string => `sweep-${slot}-${warehouseId}`;

/** One first sample per catalog: a retried create queues nothing twice. */
export const creationMeasureJobId = (warehouseId: string): string => `creation-${warehouseId}`;

/** One first sample per restore of a catalog (`restoredAt` in ms). */
export const restoreMeasureJobId = (warehouseId: string, restoredAt: number): string => `restore-${restoredAt}-${warehouseId}`;

export const MEASURE_JOB_OPTIONS = { removeOnComplete: 1000, removeOnFail: 1000, attempts: 3, backoff: { type: 'exponential', delay: 2000 } } as const;

/** A sweep that failed is not retried: the next one comes within its interval. */
export const SWEEP_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: 100 } as const;

export const meteringJobs = {
  /**
   * A creation's measurement is keyed by the catalog alone, a restore's by
   * its time. Its payload still parses a sweep's: during a rolling update a
   * replica of the version before queues them here (with a priority), and
   * these run them; a producer queues a sweep's measurement only as
   * meteringSweepJobs.measure.
   */
  measure: defineJob({
    queue: METERING_QUEUE, name: 'measure', payload: MeasureJob, options: MEASURE_JOB_OPTIONS,
    jobId: (p) => {
      if (p.source === 'sweep') throw new Error(`a sweep's measurement of ${p.warehouse_id} goes to the ${METERING_SWEEP_QUEUE} queue`);
      return p.restored_at !== undefined ? restoreMeasureJobId(p.warehouse_id, Date.parse(p.restored_at)) : creationMeasureJobId(p.warehouse_id);
    },
  }),
  sweep: defineJob({ queue: METERING_QUEUE, name: 'sweep', payload: NoPayload, options: SWEEP_JOB_OPTIONS }),
};

export const meteringSweepJobs = {
  /** Keyed by catalog and slot: a retried fan-out, or a second replica's, adds nothing. */
  measure: defineJob({
    queue: METERING_SWEEP_QUEUE, name: 'measure', payload: SweepMeasureJob, options: MEASURE_JOB_OPTIONS,
    jobId: (p) => sweepMeasureJobId(p.warehouse_id, p.slot),
  }),
};

const BucketFigures = z.object({ bytes: z.number().int().nonnegative(), objects: z.number().int().nonnegative() });

/**
 * POST /internal/usage: the worker's hourly footprint report of one catalog.
 * The control plane writes it as the catalog's newest sample (it is the one
 * writer of `usage_samples` and `usage_traffic_hours`) and answers the
 * scope's stored bytes against its storage limit; the worker enforces.
 */
export const UsageReport = z.object({
  warehouse_id: z.string().min(1),
  source: MeasureSource,
  measured_at: z.iso.datetime(),
  stale_after: z.iso.datetime(),
  table: BucketFigures,
  /** Null when the blob bucket does not exist (counted as empty). */
  blob: BucketFigures.nullable(),
  complete: z.boolean(),
  /** The usage log's counters of both buckets per UTC hour read for this report; null when the log did not answer. */
  traffic: z.array(TrafficHour).max(48).nullable(),
  /**
   * The measuring job's id (sweepMeasureJobId, creationMeasureJobId, restoreMeasureJobId): the
   * sample's key, so a retried job (BullMQ retries a job that failed after
   * its report) rewrites its one sample instead of adding a second.
   */
  job_key: z.string().min(1).max(200),
});
export type UsageReport = z.infer<typeof UsageReport>;

/** The control plane's answer to a report. */
export interface UsageReportAnswer {
  warehouse_id: string;
  /** False when the catalog is gone or deleting: nothing recorded, nothing to enforce. */
  recorded: boolean;
  scope: { kind: 'organization' | 'project'; org_id: string | null; owner_id: string } | null;
  stored_bytes: number;
  limit_value: number;
  over: boolean;
  /** The scope's public tier allowance (`public_storage_bytes`): the hard quota a public catalog's table bucket carries. */
  public_limit_value: number;
}
