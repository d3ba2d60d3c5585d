import { parse as parseCsv } from 'csv-parse/sync';
import { kindOf, parseBatch, type ElementKind } from './batch';

// A device-route body (and a sink test body): form, JSON, NDJSON or CSV, read
// into elements. JSON and NDJSON elements keep their own text, so an element
// stored unchanged is byte-for-byte what the device sent; CSV and form rows
// are objects of strings (the roll reads strings as the column's type).

export const DEVICE_BODY_LIMIT = 256 * 1024;

/** The spec's Limits for the device route: 6 posts per minute per sink sustained, bursts of 30. */
export const DEVICE_RATE = { posts_per_minute: 6, burst: 30 } as const;

export type DeviceFormat = 'json' | 'ndjson' | 'csv' | 'form';

/** An object to store, or an element refused with its reason (the spec's `reasons[{index, reason, got}]`). */
export type DeviceElement =
  | { kind: 'object'; raw: string; fields?: Record<string, string> }
  | { kind: 'misfit'; raw: string; got: ElementKind | 'invalid json' | 'csv record'; reason: string };

export interface DeviceBody {
  format: DeviceFormat;
  elements: DeviceElement[];
}

/** A body that cannot be read: 400 `unreadable_body` or 415 `unsupported_media_type`. */
export class DeviceBodyError extends Error {
  constructor(readonly status: 400 | 415, readonly code: 'unreadable_body' | 'unsupported_media_type', message: string) {
    super(message);
    this.name = 'DeviceBodyError';
  }
}

const FORMATS: Record<string, DeviceFormat> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
  'application/jsonl': 'ndjson',
  'application/x-jsonlines': 'ndjson',
  'text/csv': 'csv',
  'application/csv': 'csv',
  'application/x-www-form-urlencoded': 'form',
};

export const ACCEPTED_TYPES = Object.keys(FORMATS);

/** The body's format from its Content-Type; JSON or NDJSON is recognised in a text/plain, untyped or curl-default form body. */
export function formatOf(contentType: string | undefined, text: string): DeviceFormat {
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase();
  const known = FORMATS[type] ?? (type.endsWith('+json') ? 'json' : undefined);
  // `curl -d '{...}'` labels JSON as a form: a "form" that opens like JSON is read as JSON.
  if (known && !(known === 'form' && /^\s*[[{]/.test(text))) return known;
  if (type === '' || type === 'text/plain' || known === 'form') {
    const first = text.trimStart()[0];
    if (first === '[') return 'json';
    if (first === '{') return looksLikeOneJsonValue(text) ? 'json' : 'ndjson';
  }
  throw new DeviceBodyError(415, 'unsupported_media_type',
    `${type || 'a body without Content-Type'} is not accepted here; send ${ACCEPTED_TYPES.join(', ')}`);
}

export function readDeviceBody(contentType: string | undefined, body: Buffer): DeviceBody {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw unreadable('the body is not UTF-8 text');
  }
  if (text.trim() === '') throw unreadable('the body is empty');
  const format = formatOf(contentType, text);
  switch (format) {
    case 'json': return { format, elements: jsonElements(text) };
    case 'ndjson': return { format, elements: ndjsonElements(text) };
    case 'csv': return { format, elements: csvElements(text) };
    case 'form': return { format, elements: [formElement(text)] };
  }
}

function unreadable(message: string): DeviceBodyError {
  return new DeviceBodyError(400, 'unreadable_body', message);
}

function looksLikeOneJsonValue(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** One object, or an array whose elements are judged one by one. */
function jsonElements(text: string): DeviceElement[] {
  const trimmed = text.trim();
  if (trimmed.startsWith('[')) {
    const batch = parseBatch(trimmed);
    if (!batch.ok) throw unreadable(batch.reason);
    return batch.elements.map((e) => (e.kind === 'object' ? { kind: 'object', raw: e.raw } : notAnObject(e.kind, e.raw)));
  }
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (err) {
    throw unreadable(`the body is not valid JSON: ${(err as Error).message}`);
  }
  if (kindOf(value) !== 'object') throw unreadable(`a JSON body is an object or an array of objects, not ${kindOf(value)}`);
  // One element per line in storage: a pretty-printed object is taken as an array of one.
  const one = parseBatch(`[${trimmed}]`);
  if (!one.ok) throw unreadable(one.reason);
  return [{ kind: 'object', raw: one.elements[0].raw }];
}

function notAnObject(got: ElementKind, raw: string): DeviceElement {
  return { kind: 'misfit', raw, got, reason: 'not an object' };
}

/** One JSON value per non-empty line; a line that is not JSON is a rejected element, not a refused body. */
function ndjsonElements(text: string): DeviceElement[] {
  const out: DeviceElement[] = [];
  for (const line of text.split(/\r?\n/)) {
    const raw = line.trim();
    if (raw === '') continue;
    let kind: ElementKind;
    try {
      kind = kindOf(JSON.parse(raw));
    } catch {
      out.push({ kind: 'misfit', raw, got: 'invalid json', reason: 'not valid JSON' });
      continue;
    }
    out.push(kind === 'object' ? { kind, raw } : notAnObject(kind, raw));
  }
  return out;
}

/** A header line names the fields; each further record is one object of strings. */
function csvElements(text: string): DeviceElement[] {
  let records: string[][];
  try {
    records = parseCsv(text, { bom: true, skip_empty_lines: true, relax_column_count: true, trim: true }) as string[][];
  } catch (err) {
    throw unreadable(`the body is not readable CSV: ${(err as Error).message}`);
  }
  const [header, ...rows] = records;
  if (!header || header.some((h) => h === '')) throw unreadable('CSV needs a header line naming every field');
  if (new Set(header).size !== header.length) throw unreadable('the CSV header names a field twice');
  if (!rows.length) throw unreadable('the CSV has a header and no rows');
  return rows.map((r): DeviceElement => {
    if (r.length !== header.length) {
      return { kind: 'misfit', raw: r.join(','), got: 'csv record', reason: `${r.length} fields where the header has ${header.length}` };
    }
    const fields = Object.fromEntries(header.map((h, i) => [h, r[i]]));
    return { kind: 'object', raw: JSON.stringify(fields), fields };
  });
}

/** A form body is one object of strings; a repeated field keeps its last value. */
function formElement(text: string): DeviceElement {
  const fields: Record<string, string> = {};
  for (const [k, v] of new URLSearchParams(text.trim())) fields[k] = v;
  if (!Object.keys(fields).length) throw unreadable('the form body has no fields');
  return { kind: 'object', raw: JSON.stringify(fields), fields };
}
