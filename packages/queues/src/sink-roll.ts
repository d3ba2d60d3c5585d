import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import { defineJob, NoPayload } from './job';

// The roller's jobs. `sink-tick` is one job scheduler for the cluster:
// every tick (FLOE_ROLLER_TICK_MS) one roller reads the ledger's worklist and
// queues a `sink-roll` job for each sink that is due. A `sink-roll` job rolls
// one sink; its id is the sink's, so a sink is never queued twice.

export const SINK_ROLL_QUEUE = 'sink-roll';
export const SINK_TICK_QUEUE = 'sink-tick';
export const REJECTS_AGEING_QUEUE = 'sink-rejects-ageing';

/** The one scheduler of the tick, whichever roller upserts it. */
export const SINK_TICK_SCHEDULER = 'sink-tick';

/**
 * The reject files' sweep: every sink that ever wrote one, whether or not it
 * still rolls (a roll ages out its own sink's files as it goes), hourly for
 * the cluster.
 */
export const REJECTS_AGEING_SCHEDULER = 'sink-rejects-ageing';
export const REJECTS_AGEING_EVERY_MS = 3_600_000;

/** A roll of one sink: where its table is, and whether its waiting batches are appended or (sink deleted) discarded. */
export const SinkRollJob = z.object({
  sink_id: z.string().min(1),
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1),
  table_name: z.string().min(1),
  state: z.enum(['active', 'deleted']),
});
export type SinkRollJob = z.infer<typeof SinkRollJob>;

/** A sink's roll job id: one waiting or running roll per sink. */
export const sinkRollJobId = (sinkId: string): string => `roll-${sinkId}`;

/** A roll job leaves nothing behind: the ledger and the table are its record. */
export const SINK_ROLL_JOB_OPTIONS: JobsOptions = { removeOnComplete: true, removeOnFail: true };

/** A tick that failed is not retried: the next tick comes within its interval. */
export const SINK_TICK_JOB_OPTIONS = { removeOnComplete: true, removeOnFail: true } as const;

export const sinkJobs = {
  roll: defineJob({ queue: SINK_ROLL_QUEUE, name: 'roll', payload: SinkRollJob, options: SINK_ROLL_JOB_OPTIONS, jobId: (p) => sinkRollJobId(p.sink_id) }),
  tick: defineJob({ queue: SINK_TICK_QUEUE, name: 'tick', payload: NoPayload, options: SINK_TICK_JOB_OPTIONS }),
  rejectsAgeing: defineJob({ queue: REJECTS_AGEING_QUEUE, name: 'age-out', payload: NoPayload, options: SINK_TICK_JOB_OPTIONS }),
};
