import { Queue, QueueEvents, type ConnectionOptions, type JobsOptions, type QueueOptions } from 'bullmq';
import type { z } from 'zod';
import type { QueueName } from './index';
import type { KeyedJob } from './job';

// The producing side of the queues: one BullMQ Queue per queue name, opened
// on first use. `enqueue` adds a defined job (job.ts): the payload parsed by
// its schema first, so a producer cannot queue what its consumer would refuse,
// then the definition's options and id. `add` is the untyped form kept for the
// callers not moved to definitions yet.

/** BullMQ's connection options from a redis:// URL; every stack's keys live under its own prefix. */
export function queueConnection(redisUrl: string): ConnectionOptions {
  const u = new URL(redisUrl);
  return {
    host: u.hostname,
    port: Number(u.port || 6379),
    username: u.username || undefined,
    password: u.password || undefined,
    db: u.pathname.length > 1 ? Number(u.pathname.slice(1)) : undefined,
    maxRetriesPerRequest: null,
  };
}

/** BullMQ's key prefix for a stack (no trailing colon: BullMQ adds its own). */
export const queuePrefix = (redisPrefix: string) => `${redisPrefix}bull`;

/** What a deployable that consumes and produces jobs holds: BullMQ's connection options, its key prefix, and a producer over them. */
export function queueDeps(redisUrl: string, redisPrefix: string): { connection: ConnectionOptions; prefix: string; producers: Producers } {
  const connection = queueConnection(redisUrl);
  const prefix = queuePrefix(redisPrefix);
  return { connection, prefix, producers: new Producers(connection, prefix) };
}

/**
 * A queue's own options. The query queue's answers hold a caller's rows (up to
 * a megabyte) and travel in its events stream: the stream keeps few of them.
 */
const QUEUE_OPTIONS: Partial<Record<QueueName, Omit<QueueOptions, 'connection'>>> = { query: { streams: { events: { maxLen: 100 } } } };

/** What every add keeps of finished jobs unless its options say otherwise. */
const KEPT_JOBS: JobsOptions = { removeOnComplete: 1000, removeOnFail: 1000 };

/**
 * A producer's own options over a definition's: a delay, a priority. A job id
 * here replaces the definition's only where one subject queues a chain of jobs
 * (the provisioning probe's attempts, provisioning.ts).
 */
export type EnqueueOptions = JobsOptions;

export class Producers {
  private readonly queues = new Map<QueueName, Queue>();
  private readonly events = new Map<QueueName, QueueEvents>();
  constructor(private readonly connection: ConnectionOptions, private readonly prefix: string) {}

  private queue(name: QueueName): Queue {
    let q = this.queues.get(name);
    if (!q) {
      q = new Queue(name, { connection: this.connection, prefix: this.prefix, ...QUEUE_OPTIONS[name] });
      this.queues.set(name, q);
    }
    return q;
  }

  private async add(name: QueueName, jobName: string, data: unknown, opts: JobsOptions & { jobId: string }): Promise<void> {
    await this.queue(name).add(jobName, data, { ...KEPT_JOBS, ...opts });
  }

  /** Adds a defined job (refused with the schema's error when the payload does not parse); its job id. */
  async enqueue<S extends z.ZodType>(def: KeyedJob<S>, payload: z.input<S>, extra?: EnqueueOptions): Promise<string> {
    const { data, opts } = this.prepared(def, payload, extra);
    await this.add(def.queue, def.name, data, opts);
    return opts.jobId;
  }

  /** Adds many jobs of one definition in one round trip (a sweep's fan-out); their job ids. */
  async enqueueMany<S extends z.ZodType>(def: KeyedJob<S>, payloads: Array<z.input<S>>, extra?: EnqueueOptions): Promise<string[]> {
    const jobs = payloads.map((p) => this.prepared(def, p, extra));
    await this.queue(def.queue).addBulk(jobs.map(({ data, opts }) => ({ name: def.name, data, opts: { ...KEPT_JOBS, ...opts } })));
    return jobs.map((j) => j.opts.jobId);
  }

  /** Adds a defined job and waits for its worker's answer, as addAndWait. */
  async enqueueAndWait<S extends z.ZodType>(def: KeyedJob<S>, payload: z.input<S>, timeoutMs: number, extra?: EnqueueOptions): Promise<unknown> {
    const { data, opts } = this.prepared(def, payload, extra);
    return this.addAndWait(def.queue, def.name, data, opts, timeoutMs);
  }

  /** As enqueueAndWait, answering also the job's id (to remove it when the wait gives up). */
  async enqueueAndWaitWithId<S extends z.ZodType>(def: KeyedJob<S>, payload: z.input<S>, timeoutMs: number): Promise<{ jobId: string; answer: Promise<unknown> }> {
    const { data, opts } = this.prepared(def, payload);
    return { jobId: opts.jobId, answer: this.addAndWait(def.queue, def.name, data, opts, timeoutMs) };
  }

  private prepared<S extends z.ZodType>(def: KeyedJob<S>, payload: z.input<S>, extra?: EnqueueOptions): { data: z.output<S>; opts: JobsOptions & { jobId: string } } {
    const data = def.payload.parse(payload);
    return { data, opts: { ...def.options, ...extra, jobId: extra?.jobId ?? def.jobId(data) } };
  }

  /** Removes a waiting, delayed or failed job; false when there was none, or it is running. */
  async remove(name: QueueName, jobId: string): Promise<boolean> {
    return (await this.queue(name).remove(jobId)) === 1;
  }

  /** Where a job stands (`waiting`, `delayed`, `active`, `failed`, …), or `unknown` when there is none of that id. */
  async state(name: QueueName, jobId: string): Promise<string> {
    return this.queue(name).getJobState(jobId);
  }

  /**
   * Adds a job and waits for its worker's answer (its return value), up to
   * `timeoutMs`: a request answered by a worker (a maintenance dry run). A job
   * that fails or takes too long rejects; nothing waits for it afterwards.
   */
  private async addAndWait(name: QueueName, jobName: string, data: unknown, opts: JobsOptions & { jobId: string }, timeoutMs: number): Promise<unknown> {
    let events = this.events.get(name);
    if (!events) {
      events = new QueueEvents(name, { connection: this.connection, prefix: this.prefix });
      this.events.set(name, events);
    }
    await events.waitUntilReady();
    const job = await this.queue(name).add(jobName, data, opts);
    return job.waitUntilFinished(events, timeoutMs);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.queues.values(), ...this.events.values()].map((q) => q.close()));
  }
}
