import { parseJson, toInternal, type IcebergValue } from '@floe/iceberg';

// From waiting NDJSON lines to table rows: each line is mapped onto the
// table's current schema by column name. A line that does not fit — not a
// JSON object, a required column missing, a value of the wrong type — becomes
// a reject with its reason; the rest are appended. `__ingest_ts` is stamped
// with the time the batch was received.

export const INGEST_TS = '__ingest_ts';

export interface SchemaField {
  id: number;
  name: string;
  required: boolean;
  type: unknown;
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
    const reject = (reason: string) => into.rejects.push({ batch_id: batchId, line: i + 1, reason, raw });
    let value: unknown;
    try {
      value = parseJson(raw);
    } catch {
      reject('not valid JSON');
      continue;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      reject('not a JSON object');
      continue;
    }
    const obj = value as Record<string, unknown>;
    const row: Record<string, unknown> = {};
    let problem: string | null = null;
    for (const f of fields) {
      if (f.name === INGEST_TS) {
        row[f.name] = receivedAtMicros;
        continue;
      }
      const v = obj[f.name];
      if (v === undefined || v === null) {
        if (f.required) {
          problem = `required column ${f.name} is missing`;
          break;
        }
        row[f.name] = null;
        continue;
      }
      if (typeof f.type !== 'string') {
        // Nested columns are handed to the Parquet writer as they came.
        row[f.name] = v;
        continue;
      }
      try {
        row[f.name] = toInternal(f.type, v) as IcebergValue;
      } catch (err) {
        problem = `column ${f.name} (${f.type}): ${(err as Error).message}`;
        break;
      }
    }
    if (problem) reject(problem);
    else into.rows.push(row);
  }
}
