import type { SinkRollJob } from '@floe/queues';
import type { RollerDeps } from './deps';
import { rollSink, type RollOutcome } from './roll';

// The `sink-roll` job (payload, queue and id in packages/queues sink-roll.ts):
// one roll of one sink. Any number of rollers consume the queue; the roll lock
// keeps one roll per sink at a time.

export async function handleRollJob(d: RollerDeps, data: SinkRollJob): Promise<RollOutcome> {
  const outcome = await rollSink(d, data);
  d.logger.info('sink roll', { sink_id: data.sink_id, ...outcome });
  return outcome;
}
