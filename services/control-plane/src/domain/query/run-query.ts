import { QUERY_BYTE_CAP, QUERY_ROW_CAP } from '@floe/api';
import type { VisibleWarehouse } from '@floe/catalogs';
import { badRequest, HttpError } from '@floe/http';
import { QUERY_LIMITS, queryJobs } from '@floe/queues';
import { askQueryWorker, type AskDeps } from './ask-worker';

// POST /v1/query after the caller's read level on the catalog is checked
// (the route): the statement's snapshot choice made exact, then handed to
// the query worker through the shared queue (ask-worker.ts) with the moment
// the spec's 20 seconds run out.

export interface QueryAsk {
  sql: string;
  snapshot_id?: string | number;
  as_of?: string | number;
  limit?: number;
}

export async function runQuery(d: AskDeps, w: VisibleWarehouse, ask: QueryAsk, requestId: string | null) {
  if (ask.snapshot_id !== undefined && ask.as_of !== undefined) {
    throw badRequest('invalid_value', 'send snapshot_id or as_of, not both', { field: 'as_of' });
  }
  const asOfMs = ask.as_of === undefined ? null : typeof ask.as_of === 'number' ? ask.as_of : Date.parse(ask.as_of);
  const snapshotId = ask.snapshot_id === undefined ? null : String(ask.snapshot_id);
  if (snapshotId !== null && (BigInt(snapshotId) > 2n ** 63n - 1n || BigInt(snapshotId) < -(2n ** 63n))) {
    throw badRequest('invalid_value', 'snapshot_id is not a 64-bit snapshot id', { field: 'snapshot_id' });
  }
  const limit = ask.limit ?? QUERY_ROW_CAP;
  const queuedAt = Date.now();
  const deadline = queuedAt + QUERY_LIMITS.timeoutSeconds * 1000;
  const answer = await askQueryWorker(d, w.orgId ?? w.projectOwner, queryJobs.statement, {
    warehouse_id: w.id, sql: ask.sql, snapshot_id: snapshotId, as_of_ms: asOfMs, row_limit: limit, deadline_ms: deadline, request_id: requestId,
  }, () => new HttpError(408, 'query_timeout', `the statement did not answer within ${QUERY_LIMITS.timeoutSeconds} s and was stopped: narrow it (a filter, fewer tables, a LIMIT)`));
  const total = Date.now() - queuedAt;
  return {
    warehouse: w.name,
    warehouse_id: w.id,
    statement: answer.statement ?? ask.sql,
    columns: answer.columns,
    rows: answer.rows,
    row_count: answer.row_count,
    truncated: answer.truncated,
    limit,
    byte_limit: QUERY_BYTE_CAP,
    snapshot_ids: answer.snapshot_ids ?? {},
    elapsed_ms: total,
    bytes_scanned: answer.bytes_scanned,
    files_scanned: answer.files_scanned,
    files_skipped: answer.files_skipped ?? 0,
    timing: { queued_ms: Math.max(0, total - answer.elapsed_ms), fetch_ms: answer.fetch_ms, run_ms: answer.run_ms },
  };
}
