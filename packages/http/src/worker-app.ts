import type { Express } from 'express';
import type { Logger } from './logger';
import { createApp } from './app';
import { databaseAnswers } from './sql';

// A queue worker's tiny HTTP server: /healthz answers 200 while every queue's
// worker runs and the database answers (503 otherwise), naming the service,
// its queues and what `details` adds; /livez comes with createApp.

export interface WorkerHealth {
  service: string;
  logger: Logger;
  jobs: { isRunning(): boolean; readonly queues: string[] };
  db: { query(text: string): Promise<unknown> };
  /** More of the worker's state for its health answer. */
  details?: () => Record<string, unknown>;
}

export function workerApp(w: WorkerHealth): Express {
  return createApp({
    service: w.service,
    logger: w.logger,
    bodyLimitBytes: 1024,
    mount: (a) => {
      a.get('/healthz', async (_req, res) => {
        const running = w.jobs.isRunning();
        const db = await databaseAnswers(w.db);
        res.status(running && db ? 200 : 503).json({ ok: running && db, service: w.service, queues: w.jobs.queues, ...w.details?.() });
      });
    },
  });
}
