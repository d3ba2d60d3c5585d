import { Queue } from 'bullmq';
import { createApp } from '@floe/http';
import { QUEUES } from '@floe/queues';
import { rollerWorker } from './deps';
import { startRollWorker } from './roll-job';
import { startTicks, type TickState } from './tick-job';

// The roller: a BullMQ job scheduler ticks once for the cluster
// (tick-job.ts), queuing one `sink-roll` job per due sink; any number of
// rollers consume the queue (roll-job.ts), and an advisory lock keeps one
// roll per sink at a time. Rolls are recorded in the sink ledger directly.

const { config, logger, deps } = rollerWorker.start();

const rolls = new Queue(QUEUES.sinkRoll, { connection: deps.connection, prefix: deps.prefix });
const worker = startRollWorker(deps);
const tickState: TickState = { lastTickOk: true };
const ticking = startTicks(deps, rolls, tickState);
ticking.catch((err) => logger.error('the tick scheduler could not be set up', { err: (err as Error).message }));

const app = createApp({
  service: 'roller-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', (_req, res) => {
      const ok = worker.isRunning();
      res.status(ok ? 200 : 503).json({ ok, service: 'roller-worker', worklist_ok: tickState.lastTickOk });
    });
  },
});

rollerWorker.serve(deps, app, {
  port: config.ports.rollerHealth,
  stop: async () => {
    const t = await ticking.catch(() => undefined);
    await Promise.allSettled([worker.close(), t?.worker.close()]);
    await Promise.allSettled([rolls.close(), t?.ticks.close()]);
  },
});
