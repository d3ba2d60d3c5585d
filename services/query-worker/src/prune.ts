import type { ColumnPredicate } from '@floe/engine';
import { BOUND_KINDS, filesMayPass, parsePrimitiveType, type Bound, type BoundKind, type BoundValue, type LiveFile, type Schema, type TableMetadata } from '@floe/iceberg';

// Leaving out the data files a statement cannot read a row of: the
// comparisons the parse found certain (packages/engine predicates.ts), matched
// to the table's top-level columns and pruned by @floe/iceberg's bounds
// (scan/prune.ts: column bounds and identity partitions).

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
    if (!kind || !BOUND_KINDS.has(kind)) continue;
    const value = internal(kind as BoundKind, p.value);
    if (value !== null) out.push({ fieldId: field.id, kind: kind as BoundKind, op: p.op, value });
  }
  return out;
}

function internal(kind: BoundKind, v: ColumnPredicate['value']): BoundValue | null {
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

/** The data files that may hold a row passing every predicate; all of them when there is nothing to prune by. */
export function prunedFiles(m: TableMetadata, schema: Schema, data: LiveFile[], predicates: readonly ColumnPredicate[] | undefined): LiveFile[] {
  const bounds = predicates?.length ? boundsOf(schema, predicates) : [];
  return filesMayPass(m, data, bounds);
}
