import { rm } from 'node:fs/promises';
import { workerApp } from '@floe/http';
import { queryWorker } from './deps';
import { startQueryJobs } from './jobs';

// The query worker: the hosted query's statements (POST /v1/query) and the
// object read's Parquet previews, each in a DuckDB instance of its own over
// files fetched with the table's vended session. BullMQ consumer plus a tiny
// health server; any number may run, each taking FLOE_QUERY_WORKER_CONCURRENCY
// statements at once from the shared queue the control plane admits to.
const { config, logger, deps } = queryWorker.start();
// A directory of this process's own: nothing a previous one left is read.
await rm(deps.scratchDir, { recursive: true, force: true });
const jobs = startQueryJobs(deps);

const app = workerApp({ service: 'query-worker', logger, jobs, db: deps.db, details: () => ({ kept_files: deps.cache.size }) });

queryWorker.serve(deps, app, {
  port: config.ports.queryHealth,
  details: { concurrency: config.query.workerConcurrency, memory_limit: config.query.memoryLimit },
  stop: async () => {
    await jobs.close();
    await rm(deps.scratchDir, { recursive: true, force: true });
  },
});
