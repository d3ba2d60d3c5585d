import { badRequest } from '@floe/http';
import { JsonSyntaxError, parseJson, type JsonValue } from '@floe/iceberg';
import { parseS3Location } from '@floe/storage';
import { prefixProblem } from './blob-keys';

// The object read's pure rules (GET /v1/object): which object a query names
// (a bare key of the blob bucket, or of the table bucket with
// `bucket=tables`, or an `s3://` URI of one of the catalog's two buckets;
// the blob routes' key grammar), and in which form its answer carries it
// (a Parquet file's first rows, a small JSON or text file whole, anything
// else a presigned URL), decided from the key, the stored content type and
// the object's first bytes, never from the key alone: a `.parquet` key
// without Parquet's magic is answered as a URL, a `.json` file that does not
// parse as text.

export type BucketKind = 'tables' | 'blobs';
export const BUCKET_KINDS: readonly BucketKind[] = ['tables', 'blobs'];

/** What the query asked for, before the catalog is known. */
export interface AskedObject {
  key: string;
  /** `bucket=` of the query; null when absent. */
  bucketKind: BucketKind | null;
  /** The bucket an `s3://` URI named; null for a bare key. */
  uriBucket: string | null;
}

export interface ObjectTarget {
  bucket: string;
  bucketKind: BucketKind;
  key: string;
}

const invalidKey = (reason: string, extras: Record<string, unknown> = {}) =>
  badRequest('invalid_key', `key ${reason}`, { field: 'key', reason, ...extras });

/** `key` and `bucket` of the query: 400 `missing_field` without a key, `invalid_key` for a malformed one, `invalid_value` for an unknown bucket kind. */
export function askedObject(rawKey: unknown, rawBucket: unknown): AskedObject {
  if (rawKey === undefined) throw badRequest('missing_field', 'key is required: a key of the blob bucket, or s3://<bucket>/<key> of one of the catalog\'s buckets', { field: 'key' });
  const raw = String(rawKey);
  if (raw === '') throw invalidKey('is empty');
  let key = raw;
  let uriBucket: string | null = null;
  if (/^s3a?:\/\//.test(raw)) {
    try {
      ({ bucket: uriBucket, key } = parseS3Location(raw));
    } catch {
      throw invalidKey('is an s3:// URI without a bucket and a key');
    }
  }
  const problem = prefixProblem(key);
  if (problem) throw invalidKey(problem);
  if (rawBucket !== undefined && !BUCKET_KINDS.includes(rawBucket as BucketKind)) {
    throw badRequest('invalid_value', 'bucket is tables (the table bucket) or blobs (the blob bucket, the default for a bare key)', { field: 'bucket', accepted: BUCKET_KINDS });
  }
  return { key, uriBucket, bucketKind: (rawBucket as BucketKind | undefined) ?? null };
}

/** The bucket and key in this catalog: an s3:// URI of another bucket is 400 `invalid_key`; `bucket=` that contradicts the URI is 400 `invalid_value`. */
export function objectTarget(w: { tableBucket: string; blobBucket: string }, asked: AskedObject): ObjectTarget {
  const bucketOf = { tables: w.tableBucket, blobs: w.blobBucket };
  if (asked.uriBucket === null) {
    const bucketKind = asked.bucketKind ?? 'blobs';
    return { bucket: bucketOf[bucketKind], bucketKind, key: asked.key };
  }
  const bucketKind = BUCKET_KINDS.find((k) => bucketOf[k] === asked.uriBucket);
  if (!bucketKind) {
    throw invalidKey(`names the bucket ${asked.uriBucket}, which is not one of this catalog's`, { buckets: [w.tableBucket, w.blobBucket] });
  }
  if (asked.bucketKind && asked.bucketKind !== bucketKind) {
    throw badRequest('invalid_value', `bucket=${asked.bucketKind} contradicts the URI, which names the catalog's ${bucketKind} bucket`, { field: 'bucket' });
  }
  return { bucket: asked.uriBucket, bucketKind, key: asked.key };
}

// ---------------------------------------------------------------------------
// The answer's form.

/** The largest object answered whole (as JSON or text); bigger ones are a URL, or a Parquet preview. */
export const INLINE_MAX_BYTES = 1024 * 1024;
/** The bytes Parquet begins and ends with. */
export const PARQUET_MAGIC = Buffer.from('PAR1');
/** How many bytes of a bigger object are read to know it: the magic. */
export const HEAD_BYTES = PARQUET_MAGIC.length;

const JSON_EXTENSIONS = new Set(['json']);
const TEXT_EXTENSIONS = new Set(['txt', 'text', 'csv', 'tsv', 'ndjson', 'jsonl', 'md', 'log', 'yaml', 'yml', 'xml']);
const JSON_TYPE = /^application\/([\w.-]+\+)?json$/;
const TEXT_TYPE = /^(text\/[\w.+-]+|application\/(x-)?ndjson|application\/(xml|yaml|x-yaml))$/;

/** What the key's extension, or else the stored content type, says the object is; Parquet is known by its bytes. */
export function promisedForm(key: string, contentType: string | null): 'json' | 'text' | 'other' {
  const name = key.slice(key.lastIndexOf('/') + 1);
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  if (JSON_EXTENSIONS.has(ext)) return 'json';
  if (TEXT_EXTENSIONS.has(ext)) return 'text';
  const media = (contentType ?? '').split(';')[0].trim().toLowerCase();
  if (JSON_TYPE.test(media)) return 'json';
  if (TEXT_TYPE.test(media)) return 'text';
  return 'other';
}

export type ObjectForm =
  | { kind: 'parquet' }
  | { kind: 'json'; json: JsonValue }
  | { kind: 'text'; text: string }
  | { kind: 'url' };

/** Parquet's magic at the start, and at the end too when the whole object is at hand. */
function isParquet(bytes: Buffer, whole: boolean): boolean {
  if (bytes.length < PARQUET_MAGIC.length || !bytes.subarray(0, PARQUET_MAGIC.length).equals(PARQUET_MAGIC)) return false;
  return !whole || (bytes.length >= 2 * PARQUET_MAGIC.length + 4 && bytes.subarray(bytes.length - PARQUET_MAGIC.length).equals(PARQUET_MAGIC));
}

/** The bytes as text when they are UTF-8 (a leading byte-order mark dropped); null otherwise. */
function utf8(bytes: Buffer): string | null {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/**
 * The form of the answer: `bytes` is the whole object when `whole` (at most
 * INLINE_MAX_BYTES), else the first HEAD_BYTES of a bigger one. JSON is
 * parsed losslessly (64-bit ids, as Iceberg metadata holds them, keep every
 * digit); JSON that does not parse is answered as text, text that is not
 * UTF-8 as a URL.
 */
export function objectForm(promised: ReturnType<typeof promisedForm>, bytes: Buffer, whole: boolean): ObjectForm {
  if (isParquet(bytes, whole)) return { kind: 'parquet' };
  if (!whole || promised === 'other') return { kind: 'url' };
  const text = utf8(bytes);
  if (text === null) return { kind: 'url' };
  if (promised === 'json') {
    try {
      return { kind: 'json', json: parseJson(text) };
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) throw err;
    }
  }
  return { kind: 'text', text };
}
