import { conformValue, parseJson, requirePrimitive, toInternal, type IcebergType, type ParsedPrimitive } from '@floe/iceberg';

// From waiting NDJSON lines to table rows: each line is mapped onto the
// table's current schema by column name. A line that does not fit — not a
// JSON object, a required column missing, a value of the wrong type — becomes
// a reject with its reason; the rest are appended. `__ingest_ts` is stamped
// with the time the batch was received.
//
// Strings are read as the column's type where that is unambiguous ("42" for a
// long, "21.5" for a double, "true" for a boolean, "" as null for any column
// that is not a string): CSV and form posts from devices carry nothing else,
// and the same rule holds for every route so a row means one thing. A binary
// column takes a base64 string.
//
// This file is the contract. The roller reads the common forms of each type
// in SQL on the data-plane engine (packages/engine ndjson-read.ts), which
// leaves every batch holding anything else to this file; a test holds the
// two readings equal (services/roller-worker/src/engine-reading.test.ts).
//
// Rows are kept column by column, ready for the Parquet writer: a roll maps
// hundreds of thousands of lines, and an object per row was a fifth of its
// time in allocation and garbage collection.

export const INGEST_TS = '__ingest_ts';

/** 16 digits in a row: possibly an integer JSON.parse rounded. */
const MAYBE_UNSAFE_INTEGER = /\d{16}/;

export interface SchemaField {
  id: number;
  name: string;
  required: boolean;
  type: unknown;
}

/** The fields of a table's current schema, from its metadata. */
export function currentSchemaFields(metadata: { schemas?: unknown; 'current-schema-id'?: unknown }): SchemaField[] {
  const schemas = (metadata.schemas ?? []) as Array<{ 'schema-id': number; fields: SchemaField[] }>;
  return schemas.find((s) => s['schema-id'] === metadata['current-schema-id'])?.fields ?? [];
}

export interface Reject {
  batch_id: string;
  line: number;
  reason: string;
  raw: string;
}

export interface MappedRows {
  fields: SchemaField[];
  /** Values by field name, in Iceberg's internal representation (see @floe/iceberg toInternal); every array `count` long. */
  columns: Record<string, unknown[]>;
  count: number;
  rejects: Reject[];
}

/** Nothing mapped yet onto these fields. */
export function mappedRows(fields: SchemaField[]): MappedRows {
  return { fields, columns: Object.fromEntries(fields.map((f) => [f.name, []])), count: 0, rejects: [] };
}

/** One column's reading of a present value: the value to store, or throws with the reason it does not fit. */
type ReadValue = (v: unknown) => unknown;

interface ColumnReader {
  name: string;
  required: boolean;
  /**
   * How a present value is read: `stamped` (`__ingest_ts`, the batch's time
   * whatever the line says), and the two commonest kinds inline; the rest
   * through `read`. A call through a different closure per column was a tenth
   * of mapping a row.
   */
  kind: 'stamped' | 'string' | 'long' | 'other';
  /** "" is null here: any primitive column but a string. */
  emptyIsNull: boolean;
  read: ReadValue;
  into: unknown[];
}

/** Maps the NDJSON `text` of one batch onto `into`'s fields, appending rows and rejects. */
export function mapLines(into: MappedRows, batchId: string, receivedAtMicros: bigint, text: string): void {
  const readers = into.fields.map((f): ColumnReader => {
    const primitive = typeof f.type === 'string' ? requirePrimitive(f.type).kind : undefined;
    return {
      name: f.name,
      required: f.required,
      kind: f.name === INGEST_TS ? 'stamped' : primitive === 'string' || primitive === 'long' ? primitive : 'other',
      emptyIsNull: primitive !== undefined && primitive !== 'string',
      read: makeReader(f),
      into: into.columns[f.name],
    };
  });
  const values = new Array<unknown>(readers.length);
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    let reason = mapLine(readers, receivedAtMicros, parseLine(raw), values);
    // JSON.parse rounds integers past 2^53, which then do not fit a long: read such a line again without loss.
    if (reason !== undefined && MAYBE_UNSAFE_INTEGER.test(raw)) reason = mapLine(readers, receivedAtMicros, parseLosslessly(raw), values);
    if (reason !== undefined) {
      into.rejects.push({ batch_id: batchId, line: i + 1, reason, raw });
      continue;
    }
    for (let j = 0; j < readers.length; j++) readers[j].into.push(values[j]);
    into.count++;
  }
}

/** The line's value, or undefined when it is not JSON. */
function parseLine(raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

function parseLosslessly(raw: string): unknown {
  try {
    return parseJson(raw);
  } catch {
    return undefined;
  }
}

/** Fills `values` with the line's row; the reason it does not fit, if it does not. */
function mapLine(readers: ColumnReader[], receivedAtMicros: bigint, value: unknown, values: unknown[]): string | undefined {
  if (value === undefined) return 'not valid JSON';
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
  const obj = value as Record<string, unknown>;
  for (let j = 0; j < readers.length; j++) {
    const r = readers[j];
    if (r.kind === 'stamped') {
      values[j] = receivedAtMicros;
      continue;
    }
    const v = obj[r.name];
    if (v === undefined || v === null || (v === '' && r.emptyIsNull)) {
      if (r.required) return `required column ${r.name} is ${v === '' ? 'empty' : 'missing'}`;
      values[j] = null;
      continue;
    }
    if (r.kind === 'string' && typeof v === 'string') {
      values[j] = v;
      continue;
    }
    if (r.kind === 'long' && typeof v === 'number' && Number.isSafeInteger(v)) {
      values[j] = BigInt(v);
      continue;
    }
    try {
      values[j] = r.read(v);
    } catch (err) {
      return (err as Error).message;
    }
  }
  return undefined;
}

function makeReader(f: SchemaField): ReadValue {
  if (typeof f.type !== 'string') {
    const type = f.type as IcebergType;
    return (v) => conformValue(type, f.required, v, `column ${f.name}`);
  }
  const p = requirePrimitive(f.type);
  if (p.kind === 'string') {
    return withColumn(f, (v) => {
      if (typeof v !== 'string') throw new TypeError(`expected string, got ${typeof v}`);
      return v;
    });
  }
  return withColumn(f, (v) => toInternal(p, fromText(p, v)));
}

/** Errors name the column and its type. */
function withColumn(f: SchemaField, read: (v: unknown) => unknown): ReadValue {
  return (v) => {
    try {
      return read(v);
    } catch (err) {
      throw new TypeError(`column ${f.name} (${f.type as string}): ${(err as Error).message}`);
    }
  };
}

/** Padded base64, the standard alphabet: a binary column's JSON form. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** A string for a float, double, boolean or binary column read as that type; every other value as it is. */
function fromText(p: ParsedPrimitive, v: unknown): unknown {
  if (p.kind === 'binary') {
    if (typeof v !== 'string' || !BASE64.test(v)) throw new TypeError(`expected a base64 string, got ${typeof v === 'string' ? `"${v.slice(0, 40)}"` : typeof v}`);
    return new Uint8Array(Buffer.from(v, 'base64'));
  }
  if (typeof v !== 'string') return v;
  if (p.kind === 'float' || p.kind === 'double') {
    const n = v.trim() === '' ? NaN : Number(v);
    if (!Number.isFinite(n) && !/^[+-]?(Infinity|NaN)$/.test(v.trim())) throw new TypeError(`expected number, got "${v}"`);
    return n;
  }
  if (p.kind === 'boolean') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
    throw new TypeError(`expected boolean, got "${v}"`);
  }
  return v;
}
