import { createApp, databaseAnswers } from '@floe/http';
import { teardownWorker } from './deps';
import { startOAuthPrune } from './oauth-prune';
import { startOrgErasure } from './org-erasure';
import { startStoragePolicySweep } from './storage-policies';
import { startTeardownSweep } from './teardown-sweep';
import { startUploaderExpiry } from './uploader-expiry';
import { startWorkers } from './workers';

// The teardown worker: provisioning retries, credential retirement after a
// rotate, uploader expiry, the erasure of organisations left without members,
// the OAuth prune pass, catalog teardown after a deletion's grace period
// (with the hourly sweep that queues a stuck teardown again), and the hourly
// sweep that applies the current storage policies to older catalogs. BullMQ
// consumers plus a tiny health server; any number may run, jobs are
// idempotent and keyed by their subject.
const { config, logger, deps } = teardownWorker.start();
const { workers, producers } = startWorkers(deps);
const erasure = startOrgErasure(deps, producers);
erasure.catch((err) => logger.error('the organisation erasure scheduler could not be set up', { err: (err as Error).message }));
const expiry = startUploaderExpiry(deps);
expiry.catch((err) => logger.error('the uploader expiry scheduler could not be set up', { err: (err as Error).message }));
const oauthPrune = startOAuthPrune(deps);
oauthPrune.catch((err) => logger.error('the OAuth prune scheduler could not be set up', { err: (err as Error).message }));
const sweep = startTeardownSweep(deps, producers);
sweep.catch((err) => logger.error('the teardown sweep scheduler could not be set up', { err: (err as Error).message }));
const policies = startStoragePolicySweep(deps);
policies.catch((err) => logger.error('the storage-policy sweep scheduler could not be set up', { err: (err as Error).message }));

const app = createApp({
  service: 'teardown-worker',
  logger,
  bodyLimitBytes: 1024,
  mount: (a) => {
    a.get('/healthz', async (_req, res) => {
      const running = workers.every((w) => w.isRunning());
      const db = await databaseAnswers(deps.db);
      res.status(running && db ? 200 : 503).json({ ok: running && db, service: 'teardown-worker', queues: workers.map((w) => w.name) });
    });
  },
});

teardownWorker.serve(deps, app, {
  port: config.ports.teardownHealth,
  stop: async () => {
    const e = await erasure.catch(() => undefined);
    const x = await expiry.catch(() => undefined);
    const o = await oauthPrune.catch(() => undefined);
    const t = await sweep.catch(() => undefined);
    const p = await policies.catch(() => undefined);
    await Promise.allSettled([...workers.map((w) => w.close()), e?.worker.close(), x?.worker.close(), o?.worker.close(), t?.worker.close(), p?.worker.close()]);
    await Promise.allSettled([producers.close(), e?.passes.close(), x?.queue.close(), o?.queue.close(), t?.queue.close(), p?.queue.close()]);
  },
});
