import { createApp, databaseAnswers } from '@floe/http';
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

const app = createApp({
  service: 'teardown-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', async (_req, res) => {
      const running = jobs.isRunning();
      const db = await databaseAnswers(deps.db);
      res.status(running && db ? 200 : 503).json({ ok: running && db, service: 'teardown-worker', queues: jobs.queues });
    });
  },
});

teardownWorker.serve(deps, app, {
  port: config.ports.teardownHealth,
  stop: () => jobs.close(),
});
