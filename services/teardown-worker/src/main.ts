import { workerApp } from '@floe/http';
import { teardownWorker } from './deps';
import { startTeardownJobs } from './jobs';

// The teardown worker: provisioning retries, credential retirement after a
// rotate, uploader expiry, the erasure of organisations left without members,
// catalog teardown after a deletion's grace period
// (with the hourly sweep that queues a stuck teardown again), and the hourly
// sweep that applies the current storage policies to older catalogs. BullMQ
// consumers plus a tiny health server; any number may run, jobs are
// idempotent and keyed by their subject.
const { config, logger, deps } = teardownWorker.start();
const jobs = startTeardownJobs(deps);

const app = workerApp({ service: 'teardown-worker', logger, jobs, db: deps.db });

teardownWorker.serve(deps, app, {
  port: config.ports.teardownHealth,
  stop: () => jobs.close(),
});
