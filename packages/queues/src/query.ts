import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { defineJob } from './job';

// The `query` queue (services/query-worker): the hosted query's statements
// (POST /v1/query) and the object read's Parquet previews (GET /v1/object).
// The control plane authenticates, checks the caller's level and admits the
// statement (its deployment's and organisation's share), then adds a job and
// waits for the worker's answer. Every job is its own (its asker waits for
// that one), never retried, and carries the moment its asker stops waiting:
// a worker that takes it later answers nothing but the timeout.

export const QUERY_QUEUE = 'query';

/** The spec's query limits: 20 seconds, 2,000 rows; and the byte cap of an answer's rows (as JSON) Floe states. */
export const QUERY_LIMITS = { timeoutSeconds: 20, maxRows: 2000, maxResultBytes: 1024 * 1024, maxSqlChars: 100_000 } as const;

/** A Parquet preview's rows: its first few. */
export const OBJECT_PREVIEW_ROWS = 20;

const Deadline = z.number().int().positive();

export const QueryStatementJob = z.object({
  warehouse_id: z.string().min(1),
  sql: z.string().min(1).max(QUERY_LIMITS.maxSqlChars),
  /** A snapshot of the statement's one table (64-bit, as text); null for the current one. */
  snapshot_id: z.string().regex(/^-?\d{1,20}$/).nullable(),
  /** Each table as it stood at this moment (epoch ms); null for now. */
  as_of_ms: z.number().int().nullable(),
  row_limit: z.number().int().min(1).max(QUERY_LIMITS.maxRows),
  /** Epoch ms at which the asker stops waiting (408 query_timeout). */
  deadline_ms: Deadline,
  request_id: z.string().nullable(),
});
export type QueryStatementJob = z.infer<typeof QueryStatementJob>;

export const ObjectPreviewJob = z.object({
  warehouse_id: z.string().min(1),
  bucket: z.string().min(1),
  key: z.string().min(1),
  row_limit: z.number().int().min(1).max(QUERY_LIMITS.maxRows),
  deadline_ms: Deadline,
  request_id: z.string().nullable(),
});
export type ObjectPreviewJob = z.infer<typeof ObjectPreviewJob>;

/** A column of an answer: its name and DuckDB's type name. */
export interface AnswerColumn {
  name: string;
  type: string;
}

/**
 * A worker's answer: the rows, or a refusal in the spec's terms (status and
 * code of the error index) that the control plane answers as it is. A job
 * fails (and the asker answers 500) only on the worker's own faults.
 */
export type QueryAnswer =
  | {
    ok: true;
    columns: AnswerColumn[];
    rows: Array<Record<string, unknown>>;
    row_count: number;
    truncated: boolean;
    /** The statement as it ran (DuckDB's own printing of what it parsed); absent for a preview. */
    statement?: string;
    /** Per table read (`namespace.table`), the snapshot id read as text; null for a table with none yet. */
    snapshot_ids?: Record<string, string | null>;
    bytes_scanned: number;
    files_scanned: number;
    /** Data files left out by their bounds (a statement's simple predicates). */
    files_skipped?: number;
    /** Time in the worker: planning, fetching files, running. */
    elapsed_ms: number;
    fetch_ms: number;
    run_ms: number;
  }
  | {
    ok: false;
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
  };

/** Kept briefly for the asker's wait, then gone: an answer holds a caller's rows. */
export const QUERY_JOB_OPTIONS = { removeOnComplete: { age: 60 }, removeOnFail: { age: 300 }, attempts: 1 } as const;

const ownId = (kind: string) => () => `${kind}-${randomBytes(9).toString('base64url')}`;

export const queryJobs = {
  statement: defineJob({ queue: QUERY_QUEUE, name: 'statement', payload: QueryStatementJob, options: QUERY_JOB_OPTIONS, jobId: ownId('q') }),
  preview: defineJob({ queue: QUERY_QUEUE, name: 'preview', payload: ObjectPreviewJob, options: QUERY_JOB_OPTIONS, jobId: ownId('p') }),
};
