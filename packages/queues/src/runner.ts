import { Queue, UnrecoverableError, Worker, type ConnectionOptions, type Job, type JobsOptions, type WorkerOptions } from 'bullmq';
import { z } from 'zod';
import type { JobDefinition } from './job';

// The consuming side of the queues: one runner per deployable. It opens one
// BullMQ Worker per queue the deployable consumes and hands each job to the
// handler registered for its name, with its payload parsed by the job's
// definition (job.ts); upserts the deployable's job schedulers (one per pass
// for the cluster, whichever replica upserts it); logs every failed job in
// one shape; and closes it all. A job of a name nobody here handles, or whose
// payload its schema refuses, fails at once: no retry would make it runnable.

/** How a queue's worker runs: jobs at once, and how soon the job of a replica that died is taken over. */
export type QueueSettings = Pick<WorkerOptions, 'concurrency' | 'lockDuration' | 'stalledInterval' | 'maxStalledCount'>;

/** What a handler gets besides its payload. */
export interface RunContext {
  job: Job;
  /** The worker's lock token (for `job.moveToDelayed`). */
  token?: string;
  /** Aborted when the runner closes: a handler that loops stops at its next turn. */
  closing: AbortSignal;
}

/** A handler registered with the runner; `handle` makes one. */
export interface JobHandler {
  readonly queue: string;
  readonly name: string;
  readonly settings: QueueSettings;
  run(job: Job, token: string | undefined, closing: AbortSignal): Promise<unknown>;
}

/** Runs `def`'s jobs with `run`; `settings` are its queue's (the handlers of one queue must not disagree). */
export function handle<S extends z.ZodType>(
  def: JobDefinition<S>, run: (payload: z.output<S>, ctx: RunContext) => Promise<unknown>, settings: QueueSettings = {},
): JobHandler {
  return {
    queue: def.queue, name: def.name, settings,
    async run(job, token, closing) {
      const parsed = def.payload.safeParse(job.data);
      if (!parsed.success) throw new UnrecoverableError(`the payload of job "${def.name}" of queue "${def.queue}" is refused: ${z.prettifyError(parsed.error)}`);
      return run(parsed.data, { job, token, closing });
    },
  };
}

/** A job scheduler: BullMQ adds `def`'s job every `every` ms, once for the cluster (the scheduler's id is its key). */
export interface JobSchedule {
  readonly id: string;
  readonly every: number;
  readonly queue: string;
  readonly name: string;
  readonly options: JobsOptions;
}

export function schedule<S extends z.ZodType>(def: JobDefinition<S>, s: { id: string; every: number }): JobSchedule {
  return { ...s, queue: def.queue, name: def.name, options: def.options };
}

export interface JobRunnerOptions {
  connection: ConnectionOptions;
  prefix: string;
  logger: { error(message: string, meta?: Record<string, unknown>): unknown };
  handlers: JobHandler[];
  schedulers?: JobSchedule[];
}

export interface JobRunner {
  /** The queues consumed here. */
  readonly queues: string[];
  /** Whether every queue's worker is running (the deployable's /healthz). */
  isRunning(): boolean;
  /** Settles once every scheduler is upserted, or its failure logged. */
  readonly ready: Promise<void>;
  /** Stops taking jobs, lets the running ones finish, closes the workers. */
  close(): Promise<void>;
}

export function startJobRunner(o: JobRunnerOptions): JobRunner {
  const closing = new AbortController();
  // Every queue's handlers are checked before any worker starts taking jobs.
  const queues = [...handlersByQueue(o.handlers)].map(([queue, handlers]) => ({ queue, handlers, settings: settingsOf(queue, handlers) }));
  const workers = queues.map(({ queue, handlers, settings }) => {
    const byName = new Map(handlers.map((h) => [h.name, h]));
    const worker = new Worker(queue, async (job, token) => {
      const handler = byName.get(job.name);
      if (!handler) throw new UnrecoverableError(`no handler for job "${job.name}" of queue "${queue}" here (it handles ${[...byName.keys()].join(', ')})`);
      return handler.run(job, token, closing.signal);
    }, { connection: o.connection, prefix: o.prefix, ...settings });
    worker.on('failed', (job, err) => o.logger.error('job failed', { queue, job_id: job?.id, job_name: job?.name, attempts: job?.attemptsMade, err: err.message }));
    // Without a listener an 'error' (Redis gone for a moment) would end the process; BullMQ reconnects by itself.
    worker.on('error', (err) => o.logger.error('job worker error', { queue, err: err.message }));
    return worker;
  });
  const ready = Promise.all((o.schedulers ?? []).map((s) => upsertScheduler(o, s))).then(() => undefined);
  return {
    queues: workers.map((w) => w.name),
    isRunning: () => workers.every((w) => w.isRunning()),
    ready,
    async close() {
      closing.abort();
      await ready;
      await Promise.allSettled(workers.map((w) => w.close()));
    },
  };
}

function handlersByQueue(handlers: JobHandler[]): Map<string, JobHandler[]> {
  const byQueue = new Map<string, JobHandler[]>();
  for (const h of handlers) {
    const of = byQueue.get(h.queue) ?? [];
    if (of.some((o) => o.name === h.name)) throw new Error(`two handlers for job "${h.name}" of queue "${h.queue}"`);
    byQueue.set(h.queue, [...of, h]);
  }
  return byQueue;
}

/** One queue's settings from its handlers', which may each name some but never two values of one. */
function settingsOf(queue: string, handlers: JobHandler[]): QueueSettings {
  const merged: Record<string, unknown> = {};
  for (const h of handlers) {
    for (const [key, value] of Object.entries(h.settings)) {
      if (key in merged && merged[key] !== value) throw new Error(`the handlers of queue "${queue}" disagree on its ${key}`);
      merged[key] = value;
    }
  }
  return merged as QueueSettings;
}

async function upsertScheduler(o: JobRunnerOptions, s: JobSchedule): Promise<void> {
  const queue = new Queue(s.queue, { connection: o.connection, prefix: o.prefix });
  try {
    await queue.upsertJobScheduler(s.id, { every: s.every }, { name: s.name, opts: s.options });
  } catch (err) {
    o.logger.error('a job scheduler could not be set up', { scheduler: s.id, queue: s.queue, err: (err as Error).message });
  } finally {
    await queue.close();
  }
}
