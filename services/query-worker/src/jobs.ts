import { handle, queryJobs, startJobRunner, type JobRunner } from '@floe/queues';
import type { QueryWorkerDeps } from './deps';
import { previewObject } from './preview';
import { runStatement } from './statement';

// The worker's one queue and its two kinds of job, each answered in its
// return value to the control plane waiting on it: `statement` (POST
// /v1/query) and `preview` (a Parquet object's first rows, GET /v1/object).
// A job's lock is short: a statement ends within its 20 seconds, and one whose
// worker died is not taken over (its asker has answered by then).

export function startQueryJobs(d: QueryWorkerDeps): JobRunner {
  const queue = { concurrency: d.config.query.workerConcurrency, lockDuration: 30_000, maxStalledCount: 0 };
  return startJobRunner({
    connection: d.connection, prefix: d.prefix, logger: d.logger,
    handlers: [
      handle(queryJobs.statement, (p) => runStatement(d, p), queue),
      handle(queryJobs.preview, (p) => previewObject(d, p), queue),
    ],
  });
}
