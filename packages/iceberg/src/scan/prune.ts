import type { TableMetadata } from '../metadata/model.js';
import { partitionSpecsOf } from '../metadata/helpers.js';
import type { LiveFile } from '../files/live-files.js';
import type { ManifestFile } from '../files/manifest-list.js';
import { fromBinary } from '../files/values.js';

// Leaving out the data files no row of which can pass a filter (spec "Scan
// Planning"): a file's column bounds, and an identity partition's value, for
// comparisons of one top-level column with constants, on types whose order
// is plain — integers, floating point, strings (UTF-8 byte order, which is
// code point order), dates. A file without a bound for the column, or with a
// NaN one, is kept. Deletes need nothing: they only ever remove rows from the
// files that stay. The hosted query (services/query-worker) and the catalog's
// scan planning (services/catalog) both prune through here.

export type BoundKind = 'int' | 'long' | 'float' | 'double' | 'string' | 'date';
export const BOUND_KINDS: ReadonlySet<string> = new Set<BoundKind>(['int', 'long', 'float', 'double', 'string', 'date']);

/** A value in the order of its kind: numbers, bigints for longs, days since 1970 for dates, strings. */
export type BoundValue = number | bigint | string;

/** A condition every row read must pass: `column op value`, or `column IN values`. */
export type Bound =
  | { fieldId: number; kind: BoundKind; op: '=' | '<' | '<=' | '>' | '>='; value: BoundValue }
  | { fieldId: number; kind: BoundKind; op: 'in'; values: BoundValue[] };

/** -1, 0, 1; numbers compare as the engines do (-0 equals 0). */
function compare(a: BoundValue, b: BoundValue): number {
  if (typeof a === 'string' && typeof b === 'string') return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
  return a < b ? -1 : a > b ? 1 : 0;
}

const within = (v: BoundValue, lower: BoundValue | null, upper: BoundValue | null) =>
  (lower === null || compare(lower, v) <= 0) && (upper === null || compare(upper, v) >= 0);

/** Whether some row with a value within [lower, upper] may pass `b`. */
function mayPass(b: Bound, lower: BoundValue | null, upper: BoundValue | null): boolean {
  switch (b.op) {
    case '=': return within(b.value, lower, upper);
    case 'in': return b.values.some((v) => within(v, lower, upper));
    case '<': return lower === null || compare(lower, b.value) < 0;
    case '<=': return lower === null || compare(lower, b.value) <= 0;
    case '>': return upper === null || compare(upper, b.value) > 0;
    case '>=': return upper === null || compare(upper, b.value) >= 0;
  }
}

function decoded(kind: BoundKind, bytes: Uint8Array | undefined): BoundValue | null {
  if (!bytes) return null;
  try {
    const v = fromBinary(kind, bytes);
    if (typeof v === 'number' && Number.isNaN(v)) return null;
    return typeof v === 'number' || typeof v === 'bigint' || typeof v === 'string' ? v : null;
  } catch {
    return null;
  }
}

/** The identity partition fields of each spec, by the source column's field id: their names in a file's partition. */
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
  const file = f.file;
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

/** The data files that may hold a row passing every bound; all of them when there is none. */
export function filesMayPass(m: TableMetadata, data: LiveFile[], bounds: readonly Bound[]): LiveFile[] {
  if (!bounds.length) return data;
  const identity = identityFields(m);
  return data.filter((f) => fileMayPass(f, bounds, identity));
}

/**
 * Whether a data manifest may hold a file passing every bound, by its
 * partition summaries: the lower and upper value of each identity partition
 * field over the manifest's files. A null partition value passes no
 * comparison, so a manifest is skipped when its non-null range rules a bound
 * out. Without summaries (or for other transforms) it is read.
 */
export function manifestMayPass(m: TableMetadata, mf: ManifestFile, bounds: readonly Bound[]): boolean {
  if (!bounds.length || !mf.partitions?.length) return true;
  const spec = partitionSpecsOf(m).find((s) => (s['spec-id'] ?? 0) === mf.partition_spec_id);
  if (!spec) return true;
  for (const b of bounds) {
    const i = spec.fields.findIndex((f) => f.transform === 'identity' && f['source-id'] === b.fieldId);
    const summary = i >= 0 ? mf.partitions[i] : undefined;
    if (!summary) continue;
    const lower = decoded(b.kind, summary.lower_bound ?? undefined);
    const upper = decoded(b.kind, summary.upper_bound ?? undefined);
    // Only nulls in this field: no file of the manifest passes a comparison.
    if (summary.lower_bound === null && summary.upper_bound === null && summary.contains_null) return false;
    if ((lower !== null || upper !== null) && !mayPass(b, lower, upper)) return false;
  }
  return true;
}
