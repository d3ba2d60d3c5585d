import type { ErrorCode } from '@floe/http';

// A statement refused in the spec's terms: the status and code of the error
// index the control plane answers with, and the worker's words. The worker
// answers these (a job that completes); anything else is the worker's own
// fault and fails the job.

export class Refusal extends Error {
  constructor(readonly status: number, readonly code: ErrorCode, message: string, readonly details: Record<string, unknown> = {}) {
    super(message);
    this.name = 'Refusal';
  }
}

export const timedOut = (seconds: number) =>
  new Refusal(408, 'query_timeout', `the statement ran past ${seconds} s and was stopped: narrow it (a filter, fewer tables, a LIMIT) or read the table with an engine of your own`);
