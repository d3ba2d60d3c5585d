import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { Db } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { readOnlyKeys } from '@floe/catalogs';
import { QueryRefused, QueryTimedOut, QueryTooLarge, readOnlyStatement, runReadOnlyStatement, sqlLiteral as literal } from '@floe/engine';
import { QUERY_LIMITS, type ObjectPreviewJob, type QueryAnswer } from '@floe/queues';
import type { StorageProvider } from '@floe/storage';


// A Parquet object's first rows for GET /v1/object: fetched as the
// warehouse's read-only identity (the narrowest that can read both of its
// buckets; the control plane checked the caller's read level and that the
// key is of one of them) into a directory of its own, and read in the same
// sandbox as a statement — a file's footer or row groups are the caller's
// bytes too.

export interface PreviewDeps {
  prisma: Db;
  keyring: Keyring;
  storage: Pick<StorageProvider, 's3As'>;
  scratchDir: string;
  limits: { memoryLimit: string; threads: number };
}

export async function previewObject(d: PreviewDeps, job: ObjectPreviewJob): Promise<QueryAnswer> {
  const started = performance.now();
  const dir = join(d.scratchDir, `preview-${crypto.randomUUID()}`);
  await mkdir(dir, { recursive: true });
  try {
    const timeoutMs = job.deadline_ms - Date.now();
    if (timeoutMs <= 0) return refused(504, 'store_timeout', 'the object could not be read in time');
    const ro = await readOnlyKeys(d.prisma, d.keyring, job.warehouse_id);
    const local = join(dir, 'object.parquet');
    const got = await d.storage.s3As(ro).send(new GetObjectCommand({ Bucket: job.bucket, Key: job.key }), { abortSignal: AbortSignal.timeout(timeoutMs) });
    await pipeline(got.Body as Readable, createWriteStream(local));
    const fetched = performance.now();
    const statement = await readOnlyStatement('SELECT * FROM object.file');
    const result = await runReadOnlyStatement({
      statement, views: [{ namespace: 'object', table: 'file', select: `SELECT * FROM read_parquet(${literal(local)})` }], dir,
      memoryLimit: d.limits.memoryLimit, threads: d.limits.threads, timeoutMs: Math.max(1, job.deadline_ms - Date.now()),
      rowLimit: job.row_limit, byteLimit: QUERY_LIMITS.maxResultBytes,
    });
    return {
      ok: true, columns: result.columns, rows: result.rows, row_count: result.row_count, truncated: result.truncated,
      bytes_scanned: Number(got.ContentLength ?? 0), files_scanned: 1,
      elapsed_ms: Math.round(performance.now() - started), fetch_ms: Math.round(fetched - started), run_ms: result.elapsed_ms,
    };
  } catch (err) {
    if (err instanceof QueryRefused || err instanceof QueryTooLarge) return refused(400, 'invalid_value', `the object is not a Parquet file the engine can read: ${err.message}`, { field: 'key' });
    if (err instanceof QueryTimedOut || (err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') return refused(504, 'store_timeout', 'the object could not be read in time');
    if (err instanceof Error && '$metadata' in err) {
      return err.name === 'NoSuchKey' ? refused(404, 'not_found', 'no such object') : refused(502, 'store_error', `the store refused the read (${err.name})`);
    }
    throw err;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function refused(status: number, code: string, message: string, details?: Record<string, unknown>): QueryAnswer {
  return { ok: false, status, code, message, details };
}
