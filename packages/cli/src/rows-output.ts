// How `floe rows` prints values, by their Iceberg type. Pure.
// The Parquet reader hands back bigint for long and time, Date for date and
// timestamps (to the millisecond), a float for decimal, bytes for uuid and
// fixed, objects and arrays for struct, list and map. JSON (one object per
// row, NDJSON) keeps numbers numbers: a long is a JSON number while it is
// exact (|n| <= 2^53 - 1) and a string past that, so no reader rounds it.
// The text table shows the same values on one line each, NULL for a null,
// and cuts a cell past MAX_CELL characters.
import type { Column } from './table-rows.js';
import { renderTable } from './table.js';

export const MAX_CELL = 80;

/** A value as JSON can carry it exactly. */
export function jsonValue(value: unknown, type: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (typeof value === 'bigint') {
    if (type === 'time') return timeOfDay(value);
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value.toString();
  }
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) return String(value);
    const scale = decimalScale(type);
    return scale === null ? value : Number(value.toFixed(scale));
  }
  if (value instanceof Date) return dateText(value, type);
  if (value instanceof Uint8Array) return type === 'uuid' && value.length === 16 ? uuidText(value) : `0x${Buffer.from(value).toString('hex')}`;
  if (Array.isArray(value)) return value.map((v) => jsonValue(v, elementType(type)));
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(jsonValue(k, null)), jsonValue(v, valueType(type))]));
  if (typeof value === 'object') {
    const fields = structFields(type);
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, jsonValue(v, fields.get(k))]));
  }
  return value;
}

/** One cell of the text table. */
export function cellText(value: unknown, type: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  const scale = typeof value === 'number' ? decimalScale(type) : null;
  const v = scale !== null && Number.isFinite(value) ? (value as number).toFixed(scale) : jsonValue(value, type);
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  // Control characters would break the row apart; escape them as JSON does.
  const line = text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return line.length > MAX_CELL ? `${line.slice(0, MAX_CELL - 1)}…` : line;
}

/** The rows as an aligned table under the column names. */
export function rowsTable(columns: Column[], rows: Array<Record<string, unknown>>): string {
  return renderTable(columns.map((c) => c.name), rows.map((r) => columns.map((c) => cellText(r[c.name], c.type))));
}

/** One JSON line per row, its keys in the schema's order. */
export function ndjsonLines(columns: Column[], rows: Array<Record<string, unknown>>): string[] {
  return rows.map((r) => JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, jsonValue(r[c.name], c.type)]))));
}

function decimalScale(type: unknown): number | null {
  const m = typeof type === 'string' ? /^decimal\(\s*\d+\s*,\s*(\d+)\s*\)$/i.exec(type) : null;
  return m ? Number(m[1]) : null;
}

/** A date is a day; `timestamp` has no zone (so no Z), `timestamptz` is UTC. */
function dateText(d: Date, type: unknown): string {
  if (Number.isNaN(d.getTime())) return 'Invalid Date';
  const iso = d.toISOString();
  if (type === 'date') return iso.slice(0, 10);
  return type === 'timestamp' || type === 'timestamp_ns' ? iso.slice(0, -1) : iso;
}

/** Microseconds since midnight as HH:MM:SS[.ffffff]. */
function timeOfDay(micros: bigint): string {
  const s = micros / 1_000_000n;
  const frac = micros % 1_000_000n;
  const two = (n: bigint) => n.toString().padStart(2, '0');
  return `${two(s / 3600n)}:${two((s / 60n) % 60n)}:${two(s % 60n)}${frac ? `.${frac.toString().padStart(6, '0')}` : ''}`;
}

function uuidText(b: Uint8Array): string {
  const h = Buffer.from(b).toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

const elementType = (type: unknown) => (type as { element?: unknown } | null)?.element;
const valueType = (type: unknown) => (type as { value?: unknown } | null)?.value;

function structFields(type: unknown): Map<string, unknown> {
  const fields = (type as { fields?: Column[] } | null)?.fields ?? [];
  return new Map(fields.map((f) => [f.name, f.type]));
}
