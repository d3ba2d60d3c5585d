import { handle, meteringJobs, meteringSweepJobs, METERING_SWEEP_SCHEDULER, schedule, startJobRunner, type JobRunner } from '@floe/queues';
import type { MeteringDeps } from './deps';
import { measureCatalog } from './measure';
import { fanOut } from './sweep';

// The metering worker's two queues (packages/queues metering.ts), each with
// its own BullMQ worker: `metering` (the cluster's sweep scheduler and its
// fan-out, a new or restored catalog's first sample) and `metering-sweep`
// (the sweep's measurement of every catalog). A measurement mostly waits on
// RGW's admin API and the control plane. Per replica, four of the first at a
// time, so a first sample never waits for a sweep's backlog, and four of the
// sweep's, so a sweep's load on one replica stays bounded: a large sweep is
// spread over more replicas, which the autoscaler adds on the sweep queue's
// length (k8s/metering-worker.yaml). The pool (deps.ts) is sized for both.

const ON_DEMAND = { concurrency: 4 };
const SWEEP = { concurrency: 4 };

export function startMeteringJobs(d: MeteringDeps): JobRunner {
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(meteringJobs.sweep, (_, { job }) => fanOut(d, job), ON_DEMAND),
      handle(meteringJobs.measure, (payload, { job }) => measureCatalog(d, payload, String(job.id)), ON_DEMAND),
      handle(meteringSweepJobs.measure, (payload, { job }) => measureCatalog(d, payload, String(job.id)), SWEEP),
    ],
    schedulers: [schedule(meteringJobs.sweep, { id: METERING_SWEEP_SCHEDULER, every: d.config.metering.sweepSeconds * 1000 })],
  });
}
