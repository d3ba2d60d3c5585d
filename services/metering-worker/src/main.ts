import { workerApp } from '@floe/http';
import { meteringWorker } from './deps';
import { startMeteringJobs } from './jobs';

// The metering worker: the hourly storage sweep, each catalog's usage
// sample (reported to the control plane, which writes it) and the quota
// enforcement pass. BullMQ consumers plus a tiny health server; any number
// may run: the sweep is one scheduler for the cluster and every job is keyed
// by its subject.
const { config, logger, deps } = meteringWorker.start();
const jobs = startMeteringJobs(deps);

const app = workerApp({ service: 'metering-worker', logger, jobs, db: deps.db });

meteringWorker.serve(deps, app, {
  port: config.ports.meteringHealth,
  details: { sweep_seconds: config.metering.sweepSeconds },
  stop: () => jobs.close(),
});
