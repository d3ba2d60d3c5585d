import { Queue, Worker } from 'bullmq';
import { readWorklist } from '@floe/ingest/ledger-store';
import { QUEUES, SINK_ROLL_JOB_OPTIONS, SINK_TICK_JOB_OPTIONS, SINK_TICK_SCHEDULER, SinkRollJob, sinkRollJobId } from '@floe/queues';
import type { RollerDeps } from './deps';

// The `sink-tick` job: every FLOE_ROLLER_TICK_MS, one roller for the whole
// cluster reads the ledger's worklist and queues a `sink-roll` job for each
// sink that is due. A BullMQ job scheduler makes the ticks; every roller
// upserts the same scheduler at start, so there is one tick however many run.

export interface TickState {
  /** Whether this roller's last tick could read the worklist (shown by its /healthz). */
  lastTickOk: boolean;
}

/** Queues a roll for each due sink (none while sinks are switched off); a sink already queued is not queued again. */
export async function handleTick(d: RollerDeps, rolls: Queue, state: TickState): Promise<void> {
  try {
    const worklist = d.config.sinksEnabled ? await readWorklist(d.prisma) : [];
    for (const item of worklist) {
      if (!item.due) continue;
      await rolls.add('roll', SinkRollJob.parse(item), { ...SINK_ROLL_JOB_OPTIONS, jobId: sinkRollJobId(item.sink_id) });
    }
    state.lastTickOk = true;
  } catch (err) {
    state.lastTickOk = false;
    d.logger.warn('worklist unavailable', { err: (err as Error).message });
  }
}

/** Upserts the cluster's tick scheduler and consumes its ticks. */
export async function startTicks(d: RollerDeps, rolls: Queue, state: TickState): Promise<{ ticks: Queue; worker: Worker }> {
  const ticks = new Queue(QUEUES.sinkTick, { connection: d.connection, prefix: d.prefix });
  const worker = new Worker(QUEUES.sinkTick, () => handleTick(d, rolls, state), {
    connection: d.connection, prefix: d.prefix, concurrency: 1,
    // A roller that dies mid-tick hands the tick on within seconds.
    lockDuration: 15_000, stalledInterval: 5_000,
  });
  await ticks.upsertJobScheduler(SINK_TICK_SCHEDULER, { every: d.config.roller.tickMs }, { name: 'tick', opts: SINK_TICK_JOB_OPTIONS });
  return { ticks, worker };
}
