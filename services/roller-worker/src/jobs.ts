import { handle, REJECTS_AGEING_EVERY_MS, REJECTS_AGEING_SCHEDULER, schedule, sinkJobs, SINK_TICK_SCHEDULER, startJobRunner, type JobRunner } from '@floe/queues';
import { ageOutAllRejects } from './reject-ageing';
import type { RollerDeps } from './deps';
import { handleRollJob } from './roll-job';
import { handleTick, type TickState } from './tick-job';

// The roller's queues in one runner: the cluster's tick (its scheduler
// upserted here, one tick at a time), the hourly reject-file sweep, and the rolls it queues, two at a time
// per roller. Both take short locks, renewed while a job runs: a roller that
// dies mid-roll or mid-tick hands its job to another within seconds, not
// minutes; a roll may stall many times (rollers restarted under it) before
// BullMQ gives up on it.

export function startRollerJobs(d: RollerDeps, state: TickState): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(sinkJobs.roll, (p) => handleRollJob(d, p), { concurrency: 2, lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: 100 }),
      handle(sinkJobs.tick, () => handleTick(d, state), { concurrency: 1, lockDuration: 15_000, stalledInterval: 5_000 }),
      handle(sinkJobs.rejectsAgeing, async () => { await ageOutAllRejects(d); }, { concurrency: 1 }),
    ],
    schedulers: [
      schedule(sinkJobs.tick, { id: SINK_TICK_SCHEDULER, every: d.config.roller.tickMs }),
      schedule(sinkJobs.rejectsAgeing, { id: REJECTS_AGEING_SCHEDULER, every: REJECTS_AGEING_EVERY_MS }),
    ],
  });
}
