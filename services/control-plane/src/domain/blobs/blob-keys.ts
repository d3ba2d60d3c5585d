import { badRequest, forbidden, HttpError } from '@floe/http';
import { reachesSinkRoot, SINK_ROOT } from '@floe/ingest';

// The blob routes' input grammar, one home for listing, presign, upload,
// delete and lifecycle prefixes: object keys and prefixes (S3's 1024 bytes,
// no leading `/`, no `.` or `..` segment, no control character), the
// `_sink/` tree that is Floe's own (listed, never written or deleted through
// these routes), and the clamped numbers and flags of their queries.

export const MAX_KEY_BYTES = 1024;

/** Why a key or prefix is malformed; null when it is fine. An empty prefix is fine (the whole bucket). */
export function prefixProblem(prefix: string): string | null {
  if (Buffer.byteLength(prefix, 'utf8') > MAX_KEY_BYTES) return `longer than ${MAX_KEY_BYTES} bytes`;
  if (prefix.startsWith('/')) return 'begins with /';
  if (/\p{Cc}/u.test(prefix)) return 'holds a control character';
  if (prefix.split('/').some((s) => s === '..' || s === '.')) return 'holds a . or .. segment';
  return null;
}

/** `prefix` of a query (absent: ''), or 400 `invalid_prefix` naming why. */
export function checkPrefix(raw: unknown): string {
  const prefix = raw === undefined ? '' : String(raw);
  const problem = prefixProblem(prefix);
  if (problem) throw badRequest('invalid_prefix', `prefix ${problem}`, { field: 'prefix', reason: problem });
  return prefix;
}

/** An object key (`key` of a query), or 400 `missing_field` / `invalid_key`. */
export function checkKey(raw: unknown): string {
  if (raw === undefined || raw === '') throw badRequest('missing_field', 'key is required: the object key, e.g. reports/2026/q1.pdf', { field: 'key' });
  const key = String(raw);
  const problem = prefixProblem(key);
  if (problem) throw badRequest('invalid_key', `key ${problem}`, { field: 'key', reason: problem });
  return key;
}

const floeOwned = (field: 'key' | 'prefix', value: string) =>
  forbidden('forbidden', `${SINK_ROOT} holds Floe's sink batches and reject files; ${field} ${JSON.stringify(value)} cannot be written or deleted through the API`, {
    field, reserved_prefix: SINK_ROOT,
  });

/** Refuses a key inside Floe's `_sink/` tree (403 `forbidden` with `reserved_prefix`). */
export function refuseFloeOwnedKey(key: string): void {
  if (key.startsWith(SINK_ROOT)) throw floeOwned('key', key);
}

/** Refuses a delete prefix that reaches into `_sink/`: inside it, or covering it ('', '_', '_si', …). */
export function refuseFloeOwnedPrefix(prefix: string): void {
  if (reachesSinkRoot(prefix)) throw floeOwned('prefix', prefix);
}

/** A whole number from a query, clamped to [min, max]; absent or empty: `fallback`; not a number: 400 `invalid_value`. */
export function clampedInt(raw: unknown, field: string, min: number, max: number, fallback: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^-?\d{1,12}$/.test(String(raw))) {
    throw badRequest('invalid_value', `${field} is a whole number from ${min} to ${max} (values outside are clamped)`, { field });
  }
  return Math.min(max, Math.max(min, Number(raw)));
}

/** A boolean query flag: 1/true or 0/false; absent is false. */
export function flag(raw: unknown, field: string): boolean {
  if (raw === undefined || raw === '' || raw === '0' || raw === 'false') return false;
  if (raw === '1' || raw === 'true') return true;
  throw new HttpError(400, 'invalid_value', `${field} is 1 (or true) to ask for it, 0 (or false) not to`, { field });
}

/** `attachment` with the key's last segment as the file name (ASCII fallback, RFC 5987 form for the rest). */
export function attachmentDisposition(key: string): string {
  const name = key.split('/').filter(Boolean).pop() ?? 'download';
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  if (ascii === name) return `attachment; filename="${name}"`;
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}
