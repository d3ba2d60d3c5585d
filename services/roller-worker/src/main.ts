import { Queue, Worker } from 'bullmq';
import { createApp, serve } from '@floe/http';
import { QUEUES } from '@floe/queues';
import { worklist, type WorkItem } from './control-plane';
import { closeDeps, rollerWorker } from './deps';
import { rollSink } from './roll';

// The roller: every tick it asks the control plane which sinks are due and
// queues one `sink-roll` job per sink (the job id is the sink, so a sink is
// never queued twice); any number of rollers consume the queue, and an
// advisory lock keeps one roll per sink at a time.

const { config, logger, deps } = rollerWorker.start();
const TICK_MS = config.roller.tickMs;

const queue = new Queue(QUEUES.sinkRoll, { connection: deps.connection, prefix: deps.prefix });
const worker = new Worker(QUEUES.sinkRoll, async (job) => {
  const outcome = await rollSink(deps, job.data as WorkItem);
  logger.info('sink roll', { sink_id: (job.data as WorkItem).sink_id, ...outcome });
  return outcome;
}, {
  connection: deps.connection, prefix: deps.prefix, concurrency: 2,
  // A roller that dies mid-roll leaves its job active; a short lock (renewed while a roll runs)
  // hands the job to another roller within seconds, not minutes.
  lockDuration: 15_000, stalledInterval: 5_000, maxStalledCount: 100,
});
worker.on('failed', (job, err) => logger.error('sink roll failed', { sink_id: job?.data?.sink_id, err: err.message }));

let lastTickOk = true;
const tick = async () => {
  try {
    for (const item of await worklist(config)) {
      if (!item.due) continue;
      await queue.add('roll', item, { jobId: `roll-${item.sink_id}`, removeOnComplete: true, removeOnFail: true });
    }
    lastTickOk = true;
  } catch (err) {
    lastTickOk = false;
    logger.warn('worklist unavailable', { err: (err as Error).message });
  }
};
const timer = setInterval(() => void tick(), TICK_MS);
void tick();

const app = createApp({
  service: 'roller-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', (_req, res) => {
      const ok = worker.isRunning();
      res.status(ok ? 200 : 503).json({ ok, service: 'roller-worker', worklist_ok: lastTickOk });
    });
  },
});

serve(app, {
  name: 'roller-worker',
  port: config.ports.rollerHealth,
  host: config.listenHost,
  logger,
  onClose: async () => {
    clearInterval(timer);
    await worker.close();
    await queue.close();
    await closeDeps(deps);
  },
});
