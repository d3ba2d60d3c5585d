// Moving files in and out of a catalog's blob bucket for `floe blobs`.
// A file up to the API's body limit goes through Floe (POST …/blobs/upload).
// A larger one goes straight to the object store as a multipart upload,
// signed by an uploader made for exactly its key and living an hour at most;
// the uploader is revoked when the upload ends, however it ends (stored,
// refused, interrupted), so no write key outlives the command. A download
// streams a presigned GET into a temporary file beside the destination and
// renames it only once every byte is there: a failure leaves nothing
// half-written under the destination's name.
import { AbortMultipartUploadCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { lookup } from 'mime-types';
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, extname, join } from 'node:path';
import { Readable, Transform, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { ok, reasonOf, type Answer, type FloeApi } from './api-client.js';
import { ApiError, CliError, Hinted, NetworkError } from './errors.js';
import { storeRefusal } from './store-errors.js';

/** The API's body limit (the gateway's and control plane's `bodyLimitBytes`): larger files go to the store. */
export const API_UPLOAD_LIMIT = 1_000_000;
/** How long the uploader of one large upload lives if its revocation never comes. */
const UPLOADER_LIFETIME_MS = 60 * 60 * 1000;
/** A new storage identity's key can be refused for a moment after it is made. */
const KEY_PROPAGATION_MS = 10_000;
const KEY_NOT_YET_KNOWN = new Set(['InvalidAccessKeyId', 'SignatureDoesNotMatch', 'AccessDenied']);
const MIN_PART = 8 * 1024 * 1024;
const MAX_PARTS = 10_000;

export type Uploader = Answer<'/v1/warehouses/{warehouse_id}/uploaders', 'post', 201>;

/** What `floe blobs put` answers, whichever way the file went (its --json shape). */
export interface Stored {
  key: string;
  size: number;
  etag: string;
  content_type: string;
  bucket: string;
  via: 'api' | 'uploader';
}

/** The data files a lake holds that the mime database does not know. */
const LAKE_TYPES: Record<string, string> = {
  '.parquet': 'application/vnd.apache.parquet', '.avro': 'application/avro', '.ndjson': 'application/x-ndjson', '.jsonl': 'application/x-ndjson',
  '.zst': 'application/zstd', '.orc': 'application/vnd.apache.orc',
};

/** The media type of a file by its extension; bytes of unknown kind otherwise. */
export function contentTypeOf(file: string): string {
  return LAKE_TYPES[extname(file).toLowerCase()] ?? (lookup(file) || 'application/octet-stream');
}

/** `floe-cli-<8 hex>`: an uploader name that says who made it and never clashes with a person's. */
export const uploaderName = (random: Buffer = randomBytes(4)) => `floe-cli-${random.toString('hex')}`;

/** Parts of at least 8 MiB, larger where needed to stay within S3's 10,000 parts. */
export function partSizeFor(size: number): number {
  return Math.max(MIN_PART, Math.ceil(size / MAX_PARTS));
}

/** A refusal of a key the store may not know yet (worth a retry while nothing is uploaded). */
export function isKeyNotYetKnown(err: unknown): boolean {
  return err instanceof Error && KEY_NOT_YET_KNOWN.has(err.name);
}

/** POST …/blobs/upload: one request, the file's bytes as the body. */
export async function uploadThroughApi(api: FloeApi, catalog: string, file: string, key: string, contentType: string): Promise<Stored> {
  const bytes = await readFile(file);
  const stored = await ok(api.http.POST('/v1/warehouses/{warehouse_id}/blobs/upload', {
    params: { path: { warehouse_id: catalog }, query: { key } },
    headers: { 'Content-Type': contentType },
    // The document types a raw body as a string: the bytes travel as one latin1 character each, and go out as bytes again.
    body: bytes.toString('latin1'),
    bodySerializer: (text) => Buffer.from(text, 'latin1'),
  }));
  return { key: stored.key, size: stored.size, etag: stored.etag, content_type: stored.content_type, bucket: stored.bucket, via: 'api' };
}

export interface LargeUpload {
  api: FloeApi;
  catalog: string;
  file: string;
  key: string;
  size: number;
  contentType: string;
  /** Bytes stored so far: 0 once the uploader is made, then as parts complete. */
  onProgress: (loaded: number) => void;
  /** A sentence for the person (a revocation that failed). */
  note: (text: string) => void;
  /** Ctrl-C: stops the upload; the uploader is still revoked. */
  signal: AbortSignal;
  sleep?: (ms: number) => Promise<void>;
}

/** A large file, through an uploader confined to its key: made, used, and revoked whatever happens. */
export async function uploadThroughUploader(u: LargeUpload): Promise<Stored> {
  const uploader = await ok(u.api.http.POST('/v1/warehouses/{warehouse_id}/uploaders', {
    params: { path: { warehouse_id: u.catalog } },
    body: { name: uploaderName(), prefix: u.key, expires_at: new Date(Date.now() + UPLOADER_LIFETIME_MS).toISOString() },
  })).catch((err: unknown) => {
    if (err instanceof ApiError && err.code === 'invalid_value' && err.envelope.field === 'prefix') {
      throw new Hinted(err, `A file over ${API_UPLOAD_LIMIT.toLocaleString('en-US')} bytes goes to the store through an uploader confined to its key, so the key must be one an uploader's prefix can be: choose such a key.`);
    }
    throw err;
  });
  u.onProgress(0);
  try {
    // Some stores (Ceph RGW among them) complete a multipart upload with an empty ETag; the listing has it.
    const etag = (await putToStore(uploader, u)) || (await listedEtag(u.api, u.catalog, u.key).catch(() => ''));
    return { key: u.key, size: u.size, etag, content_type: u.contentType, bucket: uploader.bucket, via: 'uploader' };
  } finally {
    await revokeQuietly(u, uploader);
  }
}

/** The multipart upload itself, retried from the start while a fresh key is refused and nothing is uploaded yet. */
async function putToStore(uploader: Uploader, u: LargeUpload): Promise<string> {
  const sleep = u.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  // The SDK's notice that its later versions need a newer Node is for whoever ships floe, not for the person running it.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const client = new S3Client({
    endpoint: uploader.endpoint,
    region: uploader.region,
    forcePathStyle: true,
    credentials: { accessKeyId: uploader.access_key_id, secretAccessKey: uploader.secret_access_key },
    // Checksums only where S3 demands them: not every S3-compatible store takes the SDK's default trailers.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const deadline = Date.now() + KEY_PROPAGATION_MS;
  try {
    for (;;) {
      if (u.signal.aborted) throw interrupted(u.key);
      const body = createReadStream(u.file);
      const upload = new Upload({
        client,
        params: { Bucket: uploader.bucket, Key: u.key, Body: body, ContentType: u.contentType },
        partSize: partSizeFor(u.size),
        queueSize: 4,
      });
      let loaded = 0;
      upload.on('httpUploadProgress', (p) => { loaded = p.loaded ?? loaded; u.onProgress(loaded); });
      const stop = () => void upload.abort();
      u.signal.addEventListener('abort', stop, { once: true });
      try {
        const done = await upload.done();
        return (done.ETag ?? '').replace(/"/g, '');
      } catch (err) {
        if (u.signal.aborted) {
          // abort() answers at once while parts may still be in flight: end the multipart upload here, before the key goes.
          if (upload.uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket: uploader.bucket, Key: u.key, UploadId: upload.uploadId })).catch(() => {});
          throw interrupted(u.key);
        }
        if (!(isKeyNotYetKnown(err) && loaded === 0 && Date.now() < deadline)) throw storeFailure(err, uploader.endpoint, u.key);
        await sleep(1000);
      } finally {
        u.signal.removeEventListener('abort', stop);
        body.destroy();
      }
    }
  } finally {
    client.destroy();
  }
}

/** The ETag Floe's listing gives the object at `key` (keys sort after their own prefix, so it is the first). */
async function listedEtag(api: FloeApi, catalog: string, key: string): Promise<string> {
  const page = await ok(api.http.GET('/v1/warehouses/{warehouse_id}/blobs', {
    params: { path: { warehouse_id: catalog }, query: { prefix: key, delimiter: '', max_keys: 1 } },
  }));
  return page.objects.find((o) => o.key === key)?.etag ?? '';
}

async function revokeQuietly(u: LargeUpload, uploader: Uploader): Promise<void> {
  try {
    await ok(u.api.http.DELETE('/v1/warehouses/{warehouse_id}/uploaders/{uploader_id}', {
      params: { path: { warehouse_id: u.catalog, uploader_id: uploader.uploader_id } },
    }));
  } catch (err) {
    // The upload's own outcome is the command's; the leftover key expires by itself.
    u.note(`Could not revoke uploader ${uploader.name} (${err instanceof Error ? err.message : String(err)}); it expires at ${uploader.expires_at}, or run: floe uploaders revoke ${u.catalog} ${uploader.uploader_id}`);
  }
}

const interrupted = (key: string) => new CliError(`the upload of ${key} was interrupted`, undefined, undefined, 'interrupted');

function storeFailure(err: unknown, endpoint: string, key: string): Error {
  if (err instanceof S3ServiceException) {
    return new CliError(`the object store refused uploading ${key}: HTTP ${err.$metadata.httpStatusCode ?? '?'} ${err.name}: ${err.message}`);
  }
  if (err instanceof CliError) return err;
  return new NetworkError(endpoint, reasonOf(err));
}

export interface Download {
  url: string;
  key: string;
  /** Told the size once the store answers (null when it names none), then the bytes so far. */
  onStart: (total: number | null) => void;
  onProgress: (done: number) => void;
  signal?: AbortSignal;
  fetchImpl?: typeof fetch;
}

/** The presigned GET into `dest`, by way of a temporary file beside it; the bytes written. */
export async function downloadToFile(d: Download, dest: string): Promise<number> {
  const temp = join(dirname(dest), `.${basename(dest)}.${randomBytes(4).toString('hex')}.floe-part`);
  // Opened before the download starts, so a destination that cannot be written fails before any byte moves.
  const file = await open(temp, 'wx').catch((err: NodeJS.ErrnoException) => {
    throw new CliError(`cannot write in ${dirname(dest)}: ${err.code ?? err.message}`);
  });
  try {
    const bytes = await downloadTo(d, file.createWriteStream());
    await rename(temp, dest);
    return bytes;
  } catch (err) {
    await file.close().catch(() => {});
    await rm(temp, { force: true });
    throw err;
  }
}

/** The presigned GET into a stream (stdout for `-`, left open: `end` false); the bytes written. */
export async function downloadTo(d: Download, sink: Writable, end = true): Promise<number> {
  let res: Response;
  try {
    res = await (d.fetchImpl ?? fetch)(d.url, { signal: d.signal });
  } catch (err) {
    if (d.signal?.aborted) throw new CliError(`the download of ${d.key} was interrupted`, undefined, undefined, 'interrupted');
    throw new NetworkError(new URL(d.url).origin, reasonOf(err));
  }
  if (!res.ok || !res.body) throw await storeRefusal(res, `the download of ${d.key}`, { 404: 'See `floe blobs ls <catalog> [prefix]` for the keys there are.' });
  const length = res.headers.get('content-length');
  const total = length === null ? null : Number(length);
  d.onStart(total);
  let done = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, next) {
      done += chunk.length;
      d.onProgress(done);
      next(null, chunk);
    },
  });
  try {
    // fetch's body and node:stream/web's ReadableStream are one class under two declarations.
    await pipeline(Readable.fromWeb(res.body as WebReadableStream<Uint8Array>), counter, sink, { signal: d.signal, end });
  } catch (err) {
    if (d.signal?.aborted) throw new CliError(`the download of ${d.key} was interrupted`, undefined, undefined, 'interrupted');
    // A failure of the writing side (a full disk); a reader that stops early (`| head`) is main.ts's to end quietly.
    const local = err as NodeJS.ErrnoException;
    if (local.syscall) throw new CliError(`could not write the download of ${d.key}: ${local.message}`);
    throw new NetworkError(new URL(d.url).origin, reasonOf(err));
  }
  if (total !== null && done !== total) throw new CliError(`the download of ${d.key} ended after ${done} of ${total} bytes`);
  return done;
}
