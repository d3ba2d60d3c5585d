import type { ColumnPredicate } from '@floe/engine';
import { fromBinary, parsePrimitiveType, partitionSpecsOf, type DataFile, type LiveFile, type Schema, type TableMetadata } from '@floe/iceberg';

// Leaving out the data files a statement cannot read a row of (spec "Scan
// Planning": a file's column bounds, and an identity partition's value): for
// the comparisons the parse found certain (packages/engine predicates.ts),
// on top-level columns of types whose order Floe and DuckDB agree on —
// integers, floating point, strings (code point order), dates. A file without
// a bound for the column, or with a NaN one, is kept. Deletes need nothing:
// they only ever remove rows from the files that stay.

type Kind = 'int' | 'long' | 'float' | 'double' | 'string' | 'date';
const KINDS = new Set<string>(['int', 'long', 'float', 'double', 'string', 'date']);

interface Bound {
  fieldId: number;
  kind: Kind;
  op: ColumnPredicate['op'];
  value: number | bigint | string;
}

/** The predicates the table's schema can use: each matched to a top-level column (case-insensitively, when that is unambiguous) of a type with an agreed order. */
export function boundsOf(schema: Schema, predicates: readonly ColumnPredicate[]): Bound[] {
  const out: Bound[] = [];
  for (const p of predicates) {
    const exact = schema.fields.filter((f) => f.name === p.column);
    const field = exact.length === 1 ? exact[0] : (() => {
      const loose = schema.fields.filter((f) => f.name.toLowerCase() === p.column.toLowerCase());
      return loose.length === 1 ? loose[0] : undefined;
    })();
    if (!field || typeof field.type !== 'string') continue;
    const kind = parsePrimitiveType(field.type)?.kind;
    if (!kind || !KINDS.has(kind)) continue;
    const value = internal(kind as Kind, p.value);
    if (value !== null) out.push({ fieldId: field.id, kind: kind as Kind, op: p.op, value });
  }
  return out;
}

function internal(kind: Kind, v: ColumnPredicate['value']): number | bigint | string | null {
  if (kind === 'string') return v.kind === 'string' ? v.value : null;
  if (kind === 'date') {
    const text = v.kind === 'date' || v.kind === 'string' ? v.value : null;
    if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return null;
    const ms = Date.parse(`${text}T00:00:00Z`);
    return Number.isNaN(ms) ? null : ms / 86_400_000;
  }
  if (v.kind !== 'number') return null;
  if (kind === 'long') return Number.isSafeInteger(v.value) ? BigInt(v.value) : null;
  return v.value;
}

/** -1, 0, 1; numbers compare as DuckDB does (-0 equals 0). */
function compare(a: number | bigint | string, b: number | bigint | string): number {
  if (typeof a === 'string' && typeof b === 'string') {
    const x = Buffer.from(a, 'utf8');
    const y = Buffer.from(b, 'utf8');
    return Buffer.compare(x, y);
  }
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Whether some row within [lower, upper] may pass `b`. */
function mayPass(b: Bound, lower: number | bigint | string | null, upper: number | bigint | string | null): boolean {
  const v = b.value;
  switch (b.op) {
    case '=': return (lower === null || compare(lower, v) <= 0) && (upper === null || compare(upper, v) >= 0);
    case '<': return lower === null || compare(lower, v) < 0;
    case '<=': return lower === null || compare(lower, v) <= 0;
    case '>': return upper === null || compare(upper, v) > 0;
    case '>=': return upper === null || compare(upper, v) >= 0;
  }
}

function decoded(kind: Kind, bytes: Uint8Array | undefined): number | bigint | string | null {
  if (!bytes) return null;
  try {
    const v = fromBinary(kind, bytes);
    if (typeof v === 'number' && Number.isNaN(v)) return null;
    return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The identity partition fields of a spec, by the source column's field id: their names in a file's partition. */
function identityFields(m: TableMetadata): Map<number, Map<number, string>> {
  const bySpec = new Map<number, Map<number, string>>();
  for (const spec of partitionSpecsOf(m)) {
    const fields = new Map<number, string>();
    for (const f of spec.fields) if (f.transform === 'identity' && f['source-id'] !== undefined) fields.set(f['source-id'], f.name);
    bySpec.set(spec['spec-id'] ?? 0, fields);
  }
  return bySpec;
}

function fileMayPass(f: LiveFile, bounds: readonly Bound[], identity: Map<number, Map<number, string>>): boolean {
  const file: DataFile = f.file;
  for (const b of bounds) {
    const partitionName = identity.get(f.specId)?.get(b.fieldId);
    if (partitionName !== undefined && file.partition && partitionName in file.partition) {
      const pv = file.partition[partitionName] as unknown;
      const v = b.kind === 'long' && typeof pv === 'number' ? BigInt(pv) : pv;
      // A null partition value passes no comparison.
      if (v === null || v === undefined) return false;
      if ((typeof v === 'number' && !Number.isNaN(v)) || typeof v === 'bigint' || typeof v === 'string') {
        if (!mayPass(b, v, v)) return false;
      }
    }
    if (!mayPass(b, decoded(b.kind, file.lower_bounds?.get(b.fieldId)), decoded(b.kind, file.upper_bounds?.get(b.fieldId)))) return false;
  }
  return true;
}

/** The data files that may hold a row passing every predicate; all of them when there is nothing to prune by. */
export function prunedFiles(m: TableMetadata, schema: Schema, data: LiveFile[], predicates: readonly ColumnPredicate[] | undefined): LiveFile[] {
  const bounds = predicates?.length ? boundsOf(schema, predicates) : [];
  if (!bounds.length) return data;
  const identity = identityFields(m);
  return data.filter((f) => fileMayPass(f, bounds, identity));
}
