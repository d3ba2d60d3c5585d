import type { JobsOptions } from 'bullmq';
import { z } from 'zod';
import type { QueueName } from './index';

// A job as one unit: its queue, its name, the schema of its payload, the
// options it is added with and how its id derives from its subject. Producers
// add it through Producers.enqueue (producers.ts), which parses the payload
// and applies the options and the id; consumers register a handler for it with
// the job runner (runner.ts), which parses the payload again before handing it
// over. The queue and job names, ids and options are what running stacks hold
// in Redis: a definition never renames them.

export interface JobDefinition<S extends z.ZodType = z.ZodType> {
  readonly queue: QueueName;
  readonly name: string;
  readonly payload: S;
  /** Defaults of every add (and of the scheduler's template, for a scheduled pass); a producer's own options go over them. */
  readonly options: JobsOptions;
  /** The job's id from its subject, so a duplicate add adds nothing. Absent for a pass only its scheduler adds (BullMQ names those). */
  readonly jobId?: (payload: z.output<S>) => string;
}

/** A job producers add: its id derives from its payload. */
export type KeyedJob<S extends z.ZodType = z.ZodType> = JobDefinition<S> & { readonly jobId: (payload: z.output<S>) => string };

export function defineJob<S extends z.ZodType>(d: JobDefinition<S> & { jobId: (payload: z.output<S>) => string }): KeyedJob<S>;
export function defineJob<S extends z.ZodType>(d: JobDefinition<S>): JobDefinition<S>;
export function defineJob<S extends z.ZodType>(d: JobDefinition<S>): JobDefinition<S> {
  return Object.freeze({ ...d });
}

/** The payload of a scheduled pass: BullMQ adds a scheduler's jobs with `{}`. */
export const NoPayload = z.object({});
