// How `floe sinks send` and `floe sinks test` read a file of rows, and how
// send cuts the rows into the batches it posts to a sink's send route
// (spec: POST /v1/sinks/{sink_id}: a JSON array, at most 16 MiB, accepted once
// per batch id). Rows leave as the file wrote them, as JSON text never parsed
// and printed again, so integers past 2^53 keep their digits. A batch's id is
// its place in the file's plan — the file's content hash, the format and caps
// that draw the boundaries, and its index — so the same file sent again with
// the same caps makes the same ids, and the route answers those it holds as
// duplicates without storing them twice.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { extname } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'csv-parse';
import { ApiError, NetworkError, usageError } from './errors.js';
import { bytesText } from './progress.js';

export type RowFormat = 'ndjson' | 'json' | 'csv';
export const ROW_FORMATS: readonly RowFormat[] = ['ndjson', 'json', 'csv'];

/** The send route's body limit (spec). */
export const SEND_LIMIT_BYTES = 16 * 1024 * 1024;
export const DEFAULT_BATCH_ROWS = 5000;
/** Half the route's limit: a batch is one request, and a smaller one is retried sooner and cheaper. */
export const DEFAULT_BATCH_BYTES = 8 * 1024 * 1024;
export const MAX_BATCH_ROWS = 100_000;

/** A row as read: its JSON text, and where it is in the file (a line, or an element's number in a JSON array). */
export interface FileRow {
  json: string;
  at: number;
}

/** The format a path's extension names, unless one is given. */
export function formatOf(path: string, given?: RowFormat): RowFormat {
  if (given) return given;
  const ext = extname(path).toLowerCase();
  if (ext === '.ndjson' || ext === '.jsonl') return 'ndjson';
  if (ext === '.json') return 'json';
  if (ext === '.csv') return 'csv';
  throw usageError(`cannot tell the format of ${path} from its name`, 'Pass --format ndjson, json or csv.');
}

/** `line 12`, or `element 12` in a JSON array. */
export const placeOf = (format: RowFormat, at: number) => `${format === 'json' ? 'element' : 'line'} ${at}`;

/** The rows of a stream, one at a time (a JSON array is read whole: it is one value). Unreadable input is a usage error naming where. */
export function readRows(input: Readable, format: RowFormat, name: string): AsyncGenerator<FileRow> {
  if (format === 'ndjson') return ndjsonRows(input, name);
  if (format === 'json') return jsonArrayRows(input, name);
  return csvRows(input, name);
}

async function* ndjsonRows(input: Readable, name: string): AsyncGenerator<FileRow> {
  const lines = createInterface({ input, crlfDelay: Infinity });
  let n = 0;
  for await (const raw of lines) {
    n += 1;
    const json = (n === 1 ? raw.replace(/^\uFEFF/, '') : raw).trim();
    if (json === '') continue;
    try {
      JSON.parse(json);
    } catch (err) {
      throw usageError(`${name}: line ${n} is not JSON (${(err as Error).message})`, 'NDJSON is one JSON object per line; blank lines are skipped.');
    }
    yield { json, at: n };
  }
}

async function* jsonArrayRows(input: Readable, name: string): AsyncGenerator<FileRow> {
  const chunks: Buffer[] = [];
  for await (const chunk of input) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer));
  const text = Buffer.concat(chunks).toString('utf8').replace(/^\uFEFF/, '');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw usageError(`${name} is not JSON (${(err as Error).message})`);
  }
  if (!Array.isArray(value)) {
    throw usageError(`${name} holds a JSON ${value === null ? 'null' : typeof value}, not an array of rows`, 'A .json file is one array of objects; for one object per line use NDJSON (--format ndjson).');
  }
  let at = 0;
  for (const json of arrayElements(text)) yield { json, at: ++at };
}

/** The text of each element of a JSON array's text (already known to be valid JSON), as written. */
export function* arrayElements(text: string): Generator<string> {
  let depth = 0;
  let inString = false;
  let escaped = false;
  let from = 0;
  for (let i = 0; i < text.length; i += 1) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    if (ch === '"') inString = true;
    else if (ch === '[' || ch === '{') {
      depth += 1;
      if (depth === 1) from = i + 1;
    } else if (ch === ']' || ch === '}') {
      if (depth === 1) {
        const last = text.slice(from, i).trim();
        if (last !== '') yield last;
      }
      depth -= 1;
    } else if (ch === ',' && depth === 1) {
      yield text.slice(from, i).trim();
      from = i + 1;
    }
  }
}

/** A JSON number's grammar: such a cell goes out as a number, digit for digit. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * One CSV cell as JSON text. Unquoted: empty is null, a JSON number is that
 * number as written (so `9007199254740993` stays exact; `007` stays text),
 * anything else a string. A quoted cell is always a string, `""` included,
 * as COPY … CSV reads them.
 */
export function csvCellJson(value: string, quoted: boolean): string {
  if (quoted) return JSON.stringify(value);
  if (value === '') return 'null';
  if (JSON_NUMBER.test(value)) return value;
  return JSON.stringify(value);
}

async function* csvRows(input: Readable, name: string): AsyncGenerator<FileRow> {
  // The header row names the columns; each cell is cast to its JSON text here and the row's object is written from them.
  const parser = parse({
    bom: true,
    columns: true,
    skip_empty_lines: true,
    info: true,
    cast: (value, context) => (context.header ? value : csvCellJson(value, context.quoting)),
  });
  input.on('error', (err) => parser.destroy(err));
  input.pipe(parser);
  try {
    for await (const item of parser) {
      // With `info`, each item is the record and where it ended; the cells are JSON texts (cast above).
      const { record, info }: { record: Record<string, string>; info: { lines: number } } = item;
      const json = `{${Object.entries(record).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
      yield { json, at: info.lines };
    }
  } catch (err) {
    if ((err as { code?: string }).code?.startsWith('CSV_')) throw usageError(`${name}: ${(err as Error).message}`);
    throw err;
  } finally {
    input.unpipe(parser);
    parser.destroy();
  }
}

/** The caps that draw a batch's boundaries. */
export interface BatchCaps {
  rows: number;
  bytes: number;
}

export interface Batch {
  index: number;
  /** The JSON array as sent. */
  body: string;
  rows: number;
  /** Bytes of `body` as UTF-8. */
  bytes: number;
  /** Where each row is in the file (placeOf), in order. */
  at: number[];
}

/**
 * Cuts rows into batches of at most `caps.rows` rows and `caps.bytes` bytes of
 * JSON. A row larger than `caps.bytes` goes alone in its batch; one larger
 * than the route's 16 MiB cannot be sent and is a usage error naming it.
 */
export async function* cutBatches(rows: AsyncIterable<FileRow>, caps: BatchCaps, format: RowFormat): AsyncGenerator<Batch> {
  let parts: string[] = [];
  let at: number[] = [];
  let bytes = 2;
  let index = 0;
  const cut = (): Batch => {
    const batch = { index, body: `[${parts.join(',')}]`, rows: parts.length, bytes, at };
    index += 1;
    parts = [];
    at = [];
    bytes = 2;
    return batch;
  };
  for await (const row of rows) {
    const size = Buffer.byteLength(row.json);
    if (size + 2 > SEND_LIMIT_BYTES) {
      throw usageError(`${placeOf(format, row.at)} is ${bytesText(size)} of JSON: a batch is at most 16 MiB, so this row cannot be sent`);
    }
    if (parts.length > 0 && (parts.length >= caps.rows || bytes + 1 + size > caps.bytes)) yield cut();
    bytes += (parts.length > 0 ? 1 : 0) + size;
    parts.push(row.json);
    at.push(row.at);
  }
  if (parts.length > 0) yield cut();
}

/** What a file's batch ids are made of. */
export interface BatchKey {
  /** The file's sha256, hex. */
  fileHash: string;
  format: RowFormat;
  caps: BatchCaps;
}

/**
 * `<16 hex of the file's sha256>.<format>.r<rows cap>.b<bytes cap>.<index>`:
 * within the route's charset (letters, digits, `.`, `_`, `:`, `-`; at most 128),
 * and the same for the same content cut the same way. The caps are in it
 * because they move the boundaries: other caps make other batches, which must
 * not be taken for the ones already sent.
 */
export function batchId(key: BatchKey, index: number): string {
  return `${key.fileHash.slice(0, 16)}.${key.format}.r${key.caps.rows}.b${key.caps.bytes}.${index}`;
}

/** A file's sha256 (hex) and size, in one streaming pass. */
export async function fileHash(path: string): Promise<{ sha256: string; bytes: number }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const chunk of createReadStream(path)) {
    hash.update(chunk as Buffer);
    bytes += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), bytes };
}

/** Tries after the first for a batch that met a passing failure. */
export const SEND_RETRIES = 5;

/** No answer, too many requests, or a gateway or storage that failed for now: the same batch id again is safe. */
export function retryable(err: unknown): boolean {
  return err instanceof NetworkError || (err instanceof ApiError && [429, 502, 503, 504].includes(err.status));
}

/** The wait before retry `attempt` (1, 2, …): 1 s doubling to 16 s, or longer when Floe asked for it. */
export function retryDelayMs(attempt: number, err: unknown): number {
  const backoff = Math.min(16_000, 1000 * 2 ** (attempt - 1));
  const asked = err instanceof ApiError && typeof err.envelope.retry_after_seconds === 'number' ? err.envelope.retry_after_seconds * 1000 : 0;
  return Math.max(backoff, Math.min(asked, 60_000));
}

/** `fn()`, tried again after passing failures (retryable) up to SEND_RETRIES times; any other failure at once. */
export async function withRetries<T>(fn: () => Promise<T>, wait: (ms: number) => Promise<unknown> = sleep): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await fn();
    } catch (err) {
      if (attempt > SEND_RETRIES || !retryable(err)) throw err;
      await wait(retryDelayMs(attempt, err));
    }
  }
}

/**
 * Runs `fn` over the items with at most `limit` in flight, taken in order.
 * The first failure stops taking more; those in flight finish; then it is thrown.
 */
export async function eachInParallel<T>(items: AsyncIterable<T>, limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  const it = items[Symbol.asyncIterator]();
  let failure: { err: unknown } | null = null;
  const worker = async () => {
    while (!failure) {
      try {
        const next = await it.next();
        if (next.done || failure) return;
        await fn(next.value);
      } catch (err) {
        failure ??= { err };
      }
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  if (failure) {
    await it.return?.(undefined);
    throw (failure as { err: unknown }).err;
  }
}
