import { parseJson, toInternal, type IcebergValue } from '@floe/iceberg';

// From waiting NDJSON lines to table rows: each line is mapped onto the
// table's current schema by column name. A line that does not fit — not a
// JSON object, a required column missing, a value of the wrong type — becomes
// a reject with its reason; the rest are appended. `__ingest_ts` is stamped
// with the time the batch was received.
//
// Strings are read as the column's type where that is unambiguous ("42" for a
// long, "21.5" for a double, "true" for a boolean, "" as null for any column
// that is not a string): CSV and form posts from devices carry nothing else,
// and the same rule holds for every route so a row means one thing.

export const INGEST_TS = '__ingest_ts';

/** 16 digits in a row: possibly an integer JSON.parse would round (strings with such runs take the slow path too). */
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
  rows: Array<Record<string, unknown>>;
  rejects: Reject[];
}

export function mapLines(fields: SchemaField[], batchId: string, receivedAtMicros: bigint, text: string, into: MappedRows): void {
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.trim() === '') continue;
    const value = parseLine(raw);
    const outcome = value === undefined ? 'not valid JSON'
      : value === null || typeof value !== 'object' || Array.isArray(value) ? 'not a JSON object'
        : mapObject(fields, value as Record<string, unknown>, receivedAtMicros);
    if (typeof outcome === 'string') into.rejects.push({ batch_id: batchId, line: i + 1, reason: outcome, raw });
    else into.rows.push(outcome);
  }
}

/** The line's value, or undefined when it is not JSON. */
function parseLine(raw: string): unknown {
  try {
    // JSON.parse is several times faster; only a line with an integer past 2^53 needs the lossless parser.
    return MAYBE_UNSAFE_INTEGER.test(raw) ? parseJson(raw) : JSON.parse(raw);
  } catch {
    return undefined;
  }
}

/** One object as a table row, or the reason it does not fit. */
function mapObject(fields: SchemaField[], obj: Record<string, unknown>, receivedAtMicros: bigint): Record<string, unknown> | string {
  const row: Record<string, unknown> = {};
  for (const f of fields) {
    if (f.name === INGEST_TS) {
      row[f.name] = receivedAtMicros;
      continue;
    }
    const v = obj[f.name];
    if (v === undefined || v === null) {
      if (f.required) return `required column ${f.name} is missing`;
      row[f.name] = null;
      continue;
    }
    if (typeof f.type !== 'string') {
      // Nested columns are handed to the Parquet writer as they came.
      row[f.name] = v;
      continue;
    }
    if (v === '' && f.type !== 'string') {
      if (f.required) return `required column ${f.name} is empty`;
      row[f.name] = null;
      continue;
    }
    try {
      row[f.name] = toInternal(f.type, fromText(f.type, v)) as IcebergValue;
    } catch (err) {
      return `column ${f.name} (${f.type}): ${(err as Error).message}`;
    }
  }
  return row;
}

/** A string for a float, double or boolean column read as that type; every other value as it is. */
function fromText(type: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (type === 'float' || type === 'double') {
    const n = v.trim() === '' ? NaN : Number(v);
    if (!Number.isFinite(n) && !/^[+-]?(Infinity|NaN)$/.test(v.trim())) throw new TypeError(`expected number, got "${v}"`);
    return n;
  }
  if (type === 'boolean') {
    const t = v.trim().toLowerCase();
    if (t === 'true' || t === '1') return true;
    if (t === 'false' || t === '0') return false;
    throw new TypeError(`expected boolean, got "${v}"`);
  }
  return v;
}
