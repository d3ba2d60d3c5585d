import { randomUUID } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { CatalogFailure, openTable, type CatalogClient, type TableAccess } from '@floe/catalog-client';
import { QueryRefused, QueryTimedOut, QueryTooLarge, readOnlyStatement, runReadOnlyStatement, type TableName } from '@floe/engine';
import { QUERY_LIMITS, type QueryAnswer, type QueryStatementJob } from '@floe/queues';
import type { StorageProvider } from '@floe/storage';
import type { FileCache } from './file-cache';
import { planTable, type PlannedTable } from './plan';
import { Refusal, timedOut } from './refusal';

// One statement of POST /v1/query, in the worker: parsed (one read-only
// SELECT over namespace.table names), each table loaded from the catalog as
// the warehouse's own identity with a storage session vended for that table
// alone, planned at the snapshot asked for, its files fetched into a
// directory of the statement's own, then run in a sandboxed engine instance
// of its own (packages/engine query.ts) until the asker's deadline. The
// caller's grants were checked by the control plane before the job was
// added; the tables are the warehouse's only, since they come from its catalog.

/** Tables one statement may name. */
export const MAX_TABLES = 16;

export interface StatementDeps {
  catalog: CatalogClient;
  storage: Pick<StorageProvider, 's3As' | 'objectsAs' | 'listObjects' | 'deleteKeys'>;
  cache: FileCache;
  /** The worker's scratch directory: each statement's own directory goes under it. */
  scratchDir: string;
  limits: { memoryLimit: string; threads: number };
}

export async function runStatement(d: StatementDeps, job: QueryStatementJob): Promise<QueryAnswer> {
  const started = performance.now();
  try {
    if (Date.now() >= job.deadline_ms) throw timedOut(QUERY_LIMITS.timeoutSeconds);
    const statement = await readOnlyStatement(job.sql).catch((err: unknown) => {
      throw err instanceof QueryRefused ? new Refusal(400, 'invalid_value', err.message, { field: 'sql' }) : err;
    });
    if (statement.tables.length > MAX_TABLES) throw new Refusal(400, 'invalid_value', `a statement may name at most ${MAX_TABLES} tables; this names ${statement.tables.length}`, { field: 'sql' });
    if (job.snapshot_id !== null && statement.tables.length !== 1) {
      throw new Refusal(400, 'invalid_value', `snapshot_id names a snapshot of one table; this statement names ${statement.tables.length}: use as_of for several`, { field: 'snapshot_id' });
    }
    const at = { snapshotId: job.snapshot_id === null ? null : BigInt(job.snapshot_id), asOfMs: job.as_of_ms };
    const dir = join(d.scratchDir, `statement-${randomUUID()}`);
    await mkdir(dir, { recursive: true });
    try {
      const tables = await Promise.all(statement.tables.map((name) => openQueried(d, job.warehouse_id, name)));
      const place = (table: TableAccess, path: string, localPath: string) => fetchInto(d.cache, table, path, localPath);
      const planned: PlannedTable[] = await Promise.all(tables.map((t, i) => {
        const name = statement.tables[i];
        return planTable(t, name, at, statement.predicates[`${name.namespace}.${name.table}`], dir, i, place);
      }));
      const fetched = performance.now();
      const timeoutMs = job.deadline_ms - Date.now();
      if (timeoutMs <= 0) throw timedOut(QUERY_LIMITS.timeoutSeconds);
      const result = await runReadOnlyStatement({
        statement, views: planned.map((p) => p.view), dir, memoryLimit: d.limits.memoryLimit, threads: d.limits.threads,
        timeoutMs, rowLimit: job.row_limit, byteLimit: QUERY_LIMITS.maxResultBytes,
      });
      return {
        ok: true,
        columns: result.columns, rows: result.rows, row_count: result.row_count, truncated: result.truncated,
        statement: statement.sql,
        snapshot_ids: Object.fromEntries(planned.map((p, i) => [`${statement.tables[i].namespace}.${statement.tables[i].table}`, p.snapshotId === null ? null : String(p.snapshotId)])),
        bytes_scanned: planned.reduce((n, p) => n + p.bytes, 0),
        files_scanned: planned.reduce((n, p) => n + p.files, 0),
        files_skipped: planned.reduce((n, p) => n + p.skipped, 0),
        elapsed_ms: Math.round(performance.now() - started),
        fetch_ms: Math.round(fetched - started),
        run_ms: result.elapsed_ms,
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  } catch (err) {
    const refusal = refusalOf(err);
    if (!refusal) throw err;
    return { ok: false, status: refusal.status, code: refusal.code, message: refusal.message, details: refusal.details };
  }
}

/** A table of the warehouse, loaded with a session vended for its location alone. */
async function openQueried(d: StatementDeps, warehouseId: string, name: TableName): Promise<TableAccess> {
  try {
    return await openTable(d, { warehouseId, namespace: [name.namespace], table: name.table });
  } catch (err) {
    if (err instanceof CatalogFailure && err.status === 404) {
      throw new Refusal(404, 'not_found', `no table ${name.namespace}.${name.table} in this catalog (${err.type === 'NoSuchNamespaceException' ? 'no such namespace' : 'no such table'})`, { table: `${name.namespace}.${name.table}` });
    }
    if (err instanceof CatalogFailure && err.status >= 500) throw new Refusal(502, 'catalog_unavailable', `the catalog did not answer for ${name.namespace}.${name.table}: ${err.message}`);
    throw err;
  }
}

function fetchInto(cache: FileCache, t: TableAccess, path: string, localPath: string): Promise<void> {
  return cache.place(path, localPath, (to) => t.download(path, to)).then(() => undefined);
}

function refusalOf(err: unknown): Refusal | null {
  if (err instanceof Refusal) return err;
  if (err instanceof QueryRefused) return new Refusal(400, 'invalid_value', err.message, { field: 'sql' });
  if (err instanceof QueryTimedOut) return timedOut(QUERY_LIMITS.timeoutSeconds);
  if (err instanceof QueryTooLarge) return new Refusal(400, 'invalid_value', err.message, { field: 'sql' });
  // The store refused or lost a file the table's metadata names (the AWS SDK's service errors carry $metadata).
  if (err instanceof Error && '$metadata' in err) return new Refusal(502, 'catalog_unavailable', `the catalog's store did not give a file of the table (${err.name}); try again shortly`);
  return null;
}
