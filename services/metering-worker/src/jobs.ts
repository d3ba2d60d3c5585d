import { handle, meteringJobs, METERING_SWEEP_SCHEDULER, schedule, startJobRunner, type JobRunner } from '@floe/queues';
import type { MeteringDeps } from './deps';
import { measureCatalog } from './measure';
import { fanOut } from './sweep';

// The metering worker's one queue, `metering` (packages/queues metering.ts):
// the cluster's sweep scheduler and its fan-out, and each catalog's
// measurement. Four jobs at a time per replica: a measurement mostly waits on
// RGW's admin API and the control plane.

const METERING = { concurrency: 4 };

export function startMeteringJobs(d: MeteringDeps): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(meteringJobs.sweep, (_, { job }) => fanOut(d, job), METERING),
      handle(meteringJobs.measure, (payload, { job }) => measureCatalog(d, payload, String(job.id)), METERING),
    ],
    schedulers: [schedule(meteringJobs.sweep, { id: METERING_SWEEP_SCHEDULER, every: d.config.metering.sweepSeconds * 1000 })],
  });
}
