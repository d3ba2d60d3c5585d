// The input side of a rewrite's bin-packing (bin-pack.ts): the inputs'
// row groups as units, read from their footers; the row ranges a group of
// units takes from each file, as the WHERE that selects them; and the bytes
// of a written file that the output/input ratio compares.
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Unit } from './bin-pack.js';
import { literal, pathList } from './sql.js';

/** The inputs' row groups, in input order, from their footers. */
export async function unitsOf(c: DuckDBConnection, paths: readonly string[]): Promise<Unit[]> {
  const index = new Map(paths.map((p, i) => [p, i]));
  const rows = (await c.runAndReadAll(`
    SELECT file_name, row_group_id, any_value(row_group_num_rows)::BIGINT, sum(total_compressed_size)::BIGINT
    FROM parquet_metadata(${pathList(paths)}) GROUP BY file_name, row_group_id`)).getRows();
  const units = rows.map(([file, group, count, bytes]) => ({ file: index.get(file as string)!, group: Number(group), rows: count as bigint, bytes: Number(bytes) }))
    .sort((a, b) => a.file - b.file || a.group - b.group);
  const next = new Map<number, bigint>();
  return units.map(({ file, rows, bytes }) => {
    const firstRow = next.get(file) ?? 0n;
    next.set(file, firstRow + rows);
    return { file, firstRow, rows, bytes };
  });
}

/** Per input file of a group: the row range it contributes, or 'all'. */
export function rowRanges(all: readonly Unit[], group: readonly Unit[]): Map<number, 'all' | [bigint, bigint]> {
  const ranges = new Map<number, 'all' | [bigint, bigint]>();
  for (const u of group) {
    const r = ranges.get(u.file);
    ranges.set(u.file, r === undefined ? [u.firstRow, u.firstRow + u.rows] : [(r as [bigint, bigint])[0], u.firstRow + u.rows]);
  }
  for (const [file, r] of ranges) {
    const total = all.filter((u) => u.file === file).reduce((sum, u) => sum + u.rows, 0n);
    if (r !== 'all' && r[0] === 0n && r[1] === total) ranges.set(file, 'all');
  }
  return ranges;
}

/** WHERE for the files of a group that contribute only some of their row groups. */
export function partialFilter(ranges: Map<number, 'all' | [bigint, bigint]>, files: readonly { localPath: string }[]): string {
  const parts = [...ranges].filter(([, r]) => r !== 'all').map(([file, r]) => {
    const [lo, hi] = r as [bigint, bigint];
    return `(d.filename <> ${literal(files[file].localPath)} OR (d.file_row_number >= ${lo} AND d.file_row_number < ${hi}))`;
  });
  return parts.length ? `WHERE ${parts.join(' AND ')}` : '';
}

export const bytesOf = (units: readonly Unit[]): number => units.reduce((sum, u) => sum + u.bytes, 0);

/** A Parquet file's bytes without its footer: the inputs' unit bytes leave footers out too, and a small file's footer would skew the ratio. */
export function dataBytes(path: string): number {
  const size = statSync(path).size;
  const tail = Buffer.alloc(8);
  const fd = openSync(path, 'r');
  try {
    readSync(fd, tail, 0, 8, size - 8);
  } finally {
    closeSync(fd);
  }
  return Math.max(1, size - 8 - tail.readUInt32LE(0));
}
