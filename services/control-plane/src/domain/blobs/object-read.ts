import { GetObjectCommand, HeadObjectCommand } from '@aws-sdk/client-s3';
import { readOnlyKeys } from '@floe/catalogs';
import type { Db } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { HttpError, notFound } from '@floe/http';
import { OBJECT_PREVIEW_ROWS, queryJobs } from '@floe/queues';
import { toStorageError, type StorageProvider } from '@floe/storage';
import { askQueryWorker, type Answered, type AskDeps } from '../query/ask-worker';
import { HEAD_BYTES, INLINE_MAX_BYTES, objectForm, promisedForm, type ObjectForm, type ObjectTarget } from './object-forms';

// GET /v1/object: one object of a catalog's table or blob bucket, read as the
// warehouse's read-only identity (`t-<uuid>-ro`), never the service's admin
// user. The steps, in order:
//   1. HEAD the object: absent is 404 `not_found`;
//   2. read its bytes: the whole object up to INLINE_MAX_BYTES, else its
//      first HEAD_BYTES (Parquet's magic), at the ETag the HEAD saw;
//   3. answer by its form (object-forms.ts): JSON or text inline; a Parquet
//      file's first rows from the query worker (admitted against the shared
//      query queue: 429 `busy`; no worker answering: 503
//      `query_unavailable`); anything else a presigned GET.
// Every store call has STORE_TIMEOUT_MS: a store that does not answer is 504
// `store_timeout`, one that refuses or fails 502 `store_error` (both safe to
// retry; the route changes nothing).

/** How long one store call may take before the caller is told the store did not answer. */
export const STORE_TIMEOUT_MS = 5_000;
/** The life of the presigned GET of a `url` answer. */
export const OBJECT_URL_SECONDS = 900;
/** How long the caller waits for a Parquet preview: the query worker's deadline. */
export const PREVIEW_WAIT_MS = 20_000;

export interface ObjectReadDeps {
  prisma: Db;
  keyring: Keyring;
  storage: Pick<StorageProvider, 's3As' | 'presignGet'>;
  /** The store's public address (presigned URLs are signed for it). */
  s3Url: string;
  /** The query worker, for Parquet previews. */
  ask: AskDeps;
}

/** The catalog whose bucket is read, and whose organisation (or, outside one, its project's owner) a preview is admitted for. */
type ReadWarehouse = { id: string; orgId: string | null; projectOwner: string };

export interface StoredObject {
  size: number;
  contentType: string | null;
  /** Without S3's quotes. */
  etag: string;
  lastModified: Date | null;
}

export type ObjectContent =
  | Exclude<ObjectForm, { kind: 'parquet' | 'url' }>
  | { kind: 'parquet'; preview: Answered }
  | { kind: 'url'; url: string; expiresAt: Date };

export async function readObject(d: ObjectReadDeps, w: ReadWarehouse, t: ObjectTarget, requestId: string): Promise<{ object: StoredObject; content: ObjectContent }> {
  const ro = await readOnlyKeys(d.prisma, d.keyring, w.id);
  const s3 = d.storage.s3As(ro);
  const where = { Bucket: t.bucket, Key: t.key };

  // 1. what is there
  const head = await storeCall('head object', (signal) => s3.send(new HeadObjectCommand(where), { abortSignal: signal }));
  const object: StoredObject = {
    size: head.ContentLength ?? 0,
    contentType: head.ContentType ?? null,
    etag: (head.ETag ?? '').replace(/"/g, ''),
    lastModified: head.LastModified ?? null,
  };

  // 2. its bytes, as many as deciding its form takes
  const whole = object.size <= INLINE_MAX_BYTES;
  const bytes = object.size === 0 ? Buffer.alloc(0) : await storeCall('get object', async (signal) => {
    const got = await s3.send(new GetObjectCommand({ ...where, IfMatch: head.ETag, ...(whole ? {} : { Range: `bytes=0-${HEAD_BYTES - 1}` }) }), { abortSignal: signal });
    return Buffer.from(await got.Body!.transformToByteArray());
  });

  // 3. the answer in its form
  const form = objectForm(promisedForm(t.key, object.contentType), bytes, whole);
  if (form.kind === 'parquet') {
    const preview = await askQueryWorker(d.ask, w.orgId ?? w.projectOwner, queryJobs.preview, {
      warehouse_id: w.id, bucket: t.bucket, key: t.key, row_limit: OBJECT_PREVIEW_ROWS, deadline_ms: Date.now() + PREVIEW_WAIT_MS, request_id: requestId,
    }, () => new HttpError(503, 'query_unavailable', 'no query worker answered the Parquet preview in time; retry shortly', { retry_after_seconds: 5 }, { 'Retry-After': '5' }));
    return { object, content: { kind: 'parquet', preview } };
  }
  if (form.kind === 'url') {
    const signedAt = Date.now();
    const url = await d.storage.presignGet({ as: ro, endpoint: d.s3Url, bucket: t.bucket, key: t.key, expiresInSeconds: OBJECT_URL_SECONDS });
    return { object, content: { kind: 'url', url, expiresAt: new Date(signedAt + OBJECT_URL_SECONDS * 1000) } };
  }
  return { object, content: form };
}

/**
 * One store call, aborted after `timeoutMs` (504 `store_timeout`); an absent
 * object is 404 `not_found`, any other failure 502 `store_error`.
 */
export async function storeCall<T>(operation: string, call: (signal: AbortSignal) => Promise<T>, timeoutMs = STORE_TIMEOUT_MS): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      abort.abort();
      reject(new HttpError(504, 'store_timeout', `the object store did not answer the ${operation} within ${timeoutMs / 1000} s; retry shortly (it is safe)`, { retry_after_seconds: 5 }, { 'Retry-After': '5' }));
    }, timeoutMs);
  });
  try {
    return await Promise.race([call(abort.signal), timedOut]);
  } catch (err) {
    if (err instanceof HttpError) throw err;
    const failed = toStorageError(operation, err);
    if (failed.kind === 'not_found') throw notFound('not_found', 'no object at this key (it may have been deleted)');
    throw new HttpError(502, 'store_error', `the object store refused or failed the ${operation}; retry shortly (it is safe)`, { retry_after_seconds: 5 }, { 'Retry-After': '5' });
  } finally {
    clearTimeout(timer);
  }
}
