// A written Parquet file's Iceberg metrics (@floe/iceberg's DataFileStats),
// from its footer through DuckDB's parquet_metadata(), never by scanning rows.
//
// What each metric is, and when it is left out (leaving one out is always valid):
// - record_count, file_size_in_bytes, split_offsets (each row group's first
//   page), column_sizes (every leaf, compressed): always.
// - value_counts, null_value_counts: leaves outside lists and maps (as the
//   roller's writer does); null counts only when every row group has one.
// - lower/upper_bounds: primitive leaves outside lists and maps, when every
//   row group holding a non-null value has exact min and max statistics that
//   DuckDB casts back to the column's type (bounds.ts for strings and floats).
// - nan_value_counts: the footer has no NaN count; DuckDB drops a row group's
//   min/max when the group holds a NaN (engine tests check this), so a float
//   column whose every non-null row group has min/max has 0 NaNs, and one
//   that lacks them gets no NaN count.
import { statSync } from 'node:fs';
import { emptyStats, requirePrimitive, type DataFileStats } from '@floe/iceberg';
import type { DuckDBConnection } from '@duckdb/node-api';
import { icebergValue, serializedBounds } from './bounds.js';
import { duckType, type Leaf } from './columns.js';
import { literal } from './sql.js';

export async function footerStats(c: DuckDBConnection, localPath: string, leaves: readonly Leaf[], truncateLength: number): Promise<DataFileStats> {
  const meta = `parquet_metadata(${literal(localPath)})`;
  const stats: DataFileStats = emptyStats(0n, BigInt(statSync(localPath).size));

  // row groups
  const groups = (await c.runAndReadAll(`
    SELECT any_value(row_group_num_rows)::BIGINT,
      min(CASE WHEN dictionary_page_offset > 0 THEN least(dictionary_page_offset, data_page_offset) ELSE data_page_offset END)::BIGINT
    FROM ${meta} GROUP BY row_group_id ORDER BY row_group_id`)).getRows();
  for (const [rows, start] of groups) {
    stats.record_count += rows as bigint;
    stats.split_offsets.push(start as bigint);
  }
  if (!groups.length) return stats;

  // counts and sizes, one row per leaf
  const columns = (await c.runAndReadAll(`
    SELECT column_id, sum(num_values)::BIGINT, sum(stats_null_count)::BIGINT, count(stats_null_count) = count(*),
      sum(total_compressed_size)::BIGINT,
      count(*) FILTER (WHERE num_values > coalesce(stats_null_count, 0) AND (stats_min_value IS NULL OR stats_max_value IS NULL))
    FROM ${meta} GROUP BY column_id ORDER BY column_id`)).getRows();
  if (columns.length !== leaves.length) throw new Error(`${localPath}: footer has ${columns.length} columns, the schema ${leaves.length}`);
  columns.forEach(([, values, nulls, nullsKnown, size, withoutMinMax], k) => {
    const leaf = leaves[k];
    stats.column_sizes.set(leaf.id, size as bigint);
    if (leaf.inRepeated) return;
    stats.value_counts.set(leaf.id, values as bigint);
    if (nullsKnown) stats.null_value_counts.set(leaf.id, nulls as bigint);
    const kind = requirePrimitive(leaf.type).kind;
    if ((kind === 'float' || kind === 'double') && withoutMinMax === 0n) stats.nan_value_counts.set(leaf.id, 0n);
  });

  // bounds: every leaf's min and max in one query, typed by DuckDB's own cast of its statistics text
  const bounded = leaves.map((leaf, k) => ({ leaf, k })).filter(({ leaf }) => !leaf.inRepeated);
  if (!bounded.length) return stats;
  const selects = bounded.flatMap(({ leaf, k }) => {
    const t = duckType(leaf.type);
    const lo = `TRY_CAST(stats_min_value AS ${t})`;
    const hi = `TRY_CAST(stats_max_value AS ${t})`;
    return [
      `min(${lo}) FILTER (WHERE column_id = ${k})`,
      `max(${hi}) FILTER (WHERE column_id = ${k})`,
      `count(*) FILTER (WHERE column_id = ${k} AND num_values > coalesce(stats_null_count, 0)
        AND NOT coalesce(min_is_exact AND max_is_exact AND ${lo} IS NOT NULL AND ${hi} IS NOT NULL, false))`,
    ];
  });
  const row = (await c.runAndReadAll(`SELECT ${selects.join(',\n')} FROM ${meta}`)).getRows()[0];
  bounded.forEach(({ leaf }, i) => {
    if (row[3 * i + 2] !== 0n) return; // a row group without usable statistics: no bound holds for certain
    const kind = requirePrimitive(leaf.type).kind;
    const [lower, upper] = serializedBounds(leaf.type, kind, icebergValue(kind, row[3 * i]), icebergValue(kind, row[3 * i + 1]), truncateLength);
    if (lower) stats.lower_bounds.set(leaf.id, lower);
    if (upper) stats.upper_bounds.set(leaf.id, upper);
  });
  return stats;
}
