// Iceberg lower/upper bounds from Parquet footer statistics, in Iceberg's
// single-value binary form (@floe/iceberg's toBinary), following the rules
// @floe/iceberg's own writer follows so a rewritten file's metrics read the
// same as a rolled one's:
// - strings are cut to `truncateLength` code points (16, Iceberg's default
//   truncate(16) metrics mode): the lower bound is the prefix, the upper the
//   prefix with its last code point that can be raised raised by one (no
//   upper bound when none can); binary the same by bytes;
// - floats: a NaN bound is dropped; a zero lower bound is written -0.0 and a
//   zero upper bound +0.0, because Iceberg orders -0.0 before +0.0 and DuckDB
//   treats them as equal (a file holding both can report either for min or
//   max), so only the widened pair is always a true bound.
// The truncation rules are @floe/iceberg's own (files/values.ts).
import { toBinary, truncateBinaryLower, truncateBinaryUpper, truncateStringLower, truncateStringUpper, type IcebergValue } from '@floe/iceberg';

/** A DuckDB value of the type columns.ts gives an Iceberg primitive, as an Iceberg value. */
export function icebergValue(kind: string, v: unknown): IcebergValue | undefined {
  if (v === null || v === undefined) return undefined;
  switch (kind) {
    case 'decimal': return (v as { value: bigint }).value;
    case 'date': return (v as { days: number }).days;
    case 'time': case 'timestamp': case 'timestamptz': return (v as { micros: bigint }).micros;
    case 'timestamp_ns': return (v as { nanos: bigint }).nanos;
    case 'uuid': return String(v);
    case 'binary': return (v as { bytes: Uint8Array }).bytes;
    default: return v as IcebergValue;
  }
}

/** The serialized [lower, upper] bounds, either left out when no valid one exists. */
export function serializedBounds(
  type: string, kind: string, min: IcebergValue | undefined, max: IcebergValue | undefined, truncateLength: number,
): [Uint8Array | undefined, Uint8Array | undefined] {
  let lower = min;
  let upper = max;
  if (kind === 'float' || kind === 'double') {
    if (Number.isNaN(lower)) lower = undefined;
    if (Number.isNaN(upper)) upper = undefined;
    if (lower === 0) lower = -0;
    if (upper === 0) upper = 0;
  } else if (kind === 'string') {
    lower = lower === undefined ? undefined : truncateStringLower(lower as string, truncateLength);
    upper = upper === undefined ? undefined : truncateStringUpper(upper as string, truncateLength);
  } else if (kind === 'binary') {
    lower = lower === undefined ? undefined : truncateBinaryLower(lower as Uint8Array, truncateLength);
    upper = upper === undefined ? undefined : truncateBinaryUpper(upper as Uint8Array, truncateLength);
  }
  return [lower === undefined ? undefined : toBinary(type, lower), upper === undefined ? undefined : toBinary(type, upper)];
}
