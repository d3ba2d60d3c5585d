import type { Redis } from 'ioredis';
import type { FloeConfig } from '@floe/config';
import { HttpError, isErrorCode } from '@floe/http';
import { QUERY_QUEUE, type KeyedJob, type Producers, type QueryAnswer } from '@floe/queues';
import type { z } from 'zod';
import { admitQuery } from './admission';

// A statement or a preview handed to the query worker (services/query-worker)
// and its answer awaited: admitted first (admission.ts), then one job on the
// `query` queue carrying the moment the caller stops waiting. A refusal the
// worker answers (a table not found, a statement that is not read-only) is
// thrown as the error index has it; a wait that runs out removes the job if no
// worker took it yet and answers `onTimeout`.

/** Past the deadline the worker itself keeps, the time its answer takes to travel back. */
const ANSWER_GRACE_MS = 1500;

export interface AskDeps {
  redis: Redis;
  config: Pick<FloeConfig, 'redisPrefix' | 'query'>;
  queues: Pick<Producers, 'enqueueAndWaitWithId' | 'remove'>;
}

export type Answered = Extract<QueryAnswer, { ok: true }>;

export async function askQueryWorker<S extends z.ZodType>(
  d: AskDeps, orgId: string, def: KeyedJob<S>, payload: z.input<S> & { deadline_ms: number }, onTimeout: () => HttpError,
): Promise<Answered> {
  const waitMs = payload.deadline_ms - Date.now() + ANSWER_GRACE_MS;
  const place = await admitQuery(d.redis, d.config.redisPrefix, d.config.query, orgId, payload.deadline_ms + ANSWER_GRACE_MS * 2);
  try {
    const { jobId, answer } = await d.queues.enqueueAndWaitWithId(def, payload, waitMs);
    let got: QueryAnswer;
    try {
      got = await answer as QueryAnswer;
    } catch (err) {
      if (!/timed out before finishing/.test((err as Error).message)) throw err;
      // Not taken by a worker yet: it never will be (a running one stops at its deadline).
      await d.queues.remove(QUERY_QUEUE, jobId).catch(() => false);
      throw onTimeout();
    }
    if (!got.ok) {
      // The worker's refusals are typed (query-worker refusal.ts); a code that is none of Floe's is the worker's fault.
      if (!isErrorCode(got.code)) throw new Error(`the query worker refused with a code Floe does not answer: ${got.code}`);
      throw new HttpError(got.status, got.code, got.message, got.details ?? {});
    }
    return got;
  } finally {
    await place.release();
  }
}
