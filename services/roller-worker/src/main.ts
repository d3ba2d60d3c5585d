import { createApp } from '@floe/http';
import { rollerWorker } from './deps';
import { startRollerJobs } from './jobs';
import type { TickState } from './tick-job';

// The roller: a BullMQ job scheduler ticks once for the cluster
// (tick-job.ts), queuing one `sink-roll` job per due sink; any number of
// rollers consume the queue (roll-job.ts), and an advisory lock keeps one
// roll per sink at a time. Rolls are recorded in the sink ledger directly.

const { config, logger, deps } = rollerWorker.start();

const tickState: TickState = { lastTickOk: true };
const jobs = startRollerJobs(deps, tickState);

const app = createApp({
  service: 'roller-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', (_req, res) => {
      const ok = jobs.isRunning();
      res.status(ok ? 200 : 503).json({ ok, service: 'roller-worker', worklist_ok: tickState.lastTickOk });
    });
  },
});

rollerWorker.serve(deps, app, {
  port: config.ports.rollerHealth,
  stop: () => jobs.close(),
});
