import { handle, REJECTS_AGEING_EVERY_MS, REJECTS_AGEING_SCHEDULER, schedule, sinkJobs, SINK_TICK_SCHEDULER, startJobRunner, type JobRunner } from '@floe/queues';
import { ageOutAllRejects } from './reject-ageing';
import type { RollerDeps } from './deps';
import { handleRollJob } from './roll-job';
import { handleTick, type TickState } from './tick-job';

// The roller's queues in one runner: the cluster's tick (its scheduler
// upserted here, one tick at a time), the hourly reject-file sweep, and the
// rolls it queues, two at a time per roller.
//
// Rolls and ticks take short BullMQ locks: a roller that dies mid-roll or
// mid-tick hands its job to another within about 8 s (the lock lapses at most
// 6 s after its last renewal, and every roller looks for lapsed locks every
// 2 s). BullMQ renews a running job's lock every few seconds, so a roll of
// any length keeps it unless it holds the event loop for more than about 3 s
// at a stretch; one that does (the JavaScript reading of large batches, see
// docs/ingest.md) loses its job to another roller, which finds the sink's
// roll lock held and answers `busy`. One roll per sink and exactly once rest
// on that lock (sink-lock.ts) and the snapshot summary (table-batches.ts),
// never on BullMQ's lock. A roll may stall many times (rollers restarted
// under it) before BullMQ gives up on it.
const LOCK = { lockDuration: 6_000, stalledInterval: 2_000 };

export function startRollerJobs(d: RollerDeps, state: TickState): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(sinkJobs.roll, (p) => handleRollJob(d, p), { concurrency: 2, ...LOCK, maxStalledCount: 100 }),
      handle(sinkJobs.tick, () => handleTick(d, state), { concurrency: 1, ...LOCK }),
      handle(sinkJobs.rejectsAgeing, async () => { await ageOutAllRejects(d); }, { concurrency: 1 }),
    ],
    schedulers: [
      schedule(sinkJobs.tick, { id: SINK_TICK_SCHEDULER, every: d.config.roller.tickMs }),
      schedule(sinkJobs.rejectsAgeing, { id: REJECTS_AGEING_SCHEDULER, every: REJECTS_AGEING_EVERY_MS }),
    ],
  });
}
