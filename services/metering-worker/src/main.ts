import { createApp, databaseAnswers } from '@floe/http';
import { meteringWorker } from './deps';
import { startMeteringJobs } from './jobs';

// The metering worker: the hourly storage sweep, each catalog's usage
// sample (reported to the control plane, which writes it) and the quota
// enforcement pass. BullMQ consumers plus a tiny health server; any number
// may run: the sweep is one scheduler for the cluster and every job is keyed
// by its subject.
const { config, logger, deps } = meteringWorker.start();
const jobs = startMeteringJobs(deps);

const app = createApp({
  service: 'metering-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', async (_req, res) => {
      const running = jobs.isRunning();
      const db = await databaseAnswers(deps.db);
      res.status(running && db ? 200 : 503).json({ ok: running && db, service: 'metering-worker', queues: jobs.queues });
    });
  },
});

meteringWorker.serve(deps, app, {
  port: config.ports.meteringHealth,
  details: { sweep_seconds: config.metering.sweepSeconds },
  stop: () => jobs.close(),
});
