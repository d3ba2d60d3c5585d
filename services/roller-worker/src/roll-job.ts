import { Worker, type Job } from 'bullmq';
import { QUEUES, SinkRollJob } from '@floe/queues';
import type { RollerDeps } from './deps';
import { rollSink, type RollOutcome } from './roll';

// The `sink-roll` job (payload, queue and id in packages/queues sink-roll.ts):
// one roll of one sink. Any number of rollers consume the queue; the roll lock
// keeps one roll per sink at a time.

export async function handleRollJob(d: RollerDeps, job: Job): Promise<RollOutcome> {
  const data = SinkRollJob.parse(job.data);
  const outcome = await rollSink(d, data);
  d.logger.info('sink roll', { sink_id: data.sink_id, ...outcome });
  return outcome;
}

export function startRollWorker(d: RollerDeps): Worker {
  const worker = new Worker(QUEUES.sinkRoll, (job) => handleRollJob(d, job), {
    connection: d.connection, prefix: d.prefix, concurrency: 2,
    // A roller that dies mid-roll leaves its job active; a short lock (renewed while a roll runs)
    // hands the job to another roller within seconds, not minutes.
    lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: 100,
  });
  worker.on('failed', (job, err) => d.logger.error('sink roll failed', { sink_id: job?.data?.sink_id, err: err.message }));
  return worker;
}
