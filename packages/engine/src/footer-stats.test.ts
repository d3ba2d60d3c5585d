// Metrics from the footer where DuckDB's statistics and Iceberg's rules part:
// NaN, signed zeros, long strings, awkward bytes, all-null columns.
import { join } from 'node:path';
import { fromBinary, writeParquetDataFile, type Schema } from '@floe/iceberg';
import { openScratch, writeDataFiles, type Scratch } from './test-fixtures.js';

let s: Scratch;
beforeAll(async () => {
  s = await openScratch();
});
afterAll(() => s?.close());

const edges: Schema = { type: 'struct', fields: [
  { id: 1, name: 'id', required: true, type: 'long' },
  { id: 2, name: 'with_nan', required: false, type: 'double' },
  { id: 3, name: 'zeros', required: false, type: 'float' },
  { id: 4, name: 'text', required: false, type: 'string' },
  { id: 5, name: 'bytes', required: false, type: 'binary' },
  { id: 6, name: 'nothing', required: false, type: 'int' },
  { id: 7, name: 'pos_zero', required: false, type: 'double' },
] };

const edgeRow = (i: number) => ({
  id: BigInt(i),
  with_nan: i === 7 ? Number.NaN : i / 3,
  zeros: i % 2 ? -0 : 0,
  text: i % 2 ? `${'ž'.repeat(20)}${i}` : `\u{1F600}${'a'.repeat(30)}`,
  bytes: i === 3 ? new Uint8Array([0x5c, 0x78, 0x34, 0x31]) : new Uint8Array(Array.from({ length: 20 }, (_, k) => (k < 16 ? 0xff : i))),
  nothing: null,
  pos_zero: i % 3 === 0 ? 0 : i,
});

test('NaN, signed zeros, truncated strings and bytes, all-null columns', async () => {
  const rows = Array.from({ length: 50 }, (_, i) => edgeRow(i));
  const inputs = writeDataFiles(s.engine.scratchDir, 'edges', 2, 25, { rowOf: edgeRow, schema: edges });
  const [out] = await s.engine.rewriteDataFiles({
    schema: edges, files: inputs, targetFileSizeBytes: 1e9, outputDir: join(s.engine.scratchDir, 'out-edges'), prefix: 'e',
  });
  const ours = out.stats;
  const theirs = writeParquetDataFile({ schema: edges, rows }).stats;

  // A NaN leaves DuckDB's row group without min/max: no bounds, no NaN count (the writer has 1).
  expect(ours.lower_bounds.has(2) || ours.upper_bounds.has(2) || ours.nan_value_counts.has(2)).toBe(false);
  expect(theirs.nan_value_counts.get(2)).toBe(1n);
  // Both zeros present: the bounds are -0.0 and +0.0, as Iceberg orders them.
  expect(Object.is(fromBinary('float', ours.lower_bounds.get(3)!), -0)).toBe(true);
  expect(Object.is(fromBinary('float', ours.upper_bounds.get(3)!), 0)).toBe(true);
  expect(ours.nan_value_counts.get(3)).toBe(0n);
  // Only +0.0 and positives: the lower bound still widens to -0.0 (a true bound; the writer says +0.0).
  expect(Object.is(fromBinary('double', ours.lower_bounds.get(7)!), -0)).toBe(true);
  // Strings and bytes truncated as the writer truncates them (surrogate pairs, bytes at 0xff).
  for (const id of [1, 3, 4, 5]) {
    expect([id, ours.lower_bounds.get(id)]).toEqual([id, theirs.lower_bounds.get(id)]);
    expect([id, ours.upper_bounds.get(id)]).toEqual([id, theirs.upper_bounds.get(id)]);
  }
  expect(ours.upper_bounds.has(5)).toBe(false); // sixteen 0xff bytes cannot be raised: no upper bound
  // A column of nulls: counts, no bounds.
  expect([ours.value_counts.get(6), ours.null_value_counts.get(6), ours.lower_bounds.has(6)]).toEqual([50n, 50n, false]);
  expect(ours.null_value_counts).toEqual(theirs.null_value_counts);
  expect(ours.value_counts).toEqual(theirs.value_counts);
});
