// rewriteDataFiles against real DuckDB and real files: small files written
// by @floe/iceberg's writer (the roller's) come back as fewer files with
// every row once, field ids on every column, zstd, and the metrics the
// roller's writer would compute for the same rows.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { writeParquetDataFile, type DataFileStats, type Schema } from '@floe/iceberg';
import { UnsupportedSchemaError } from './columns.js';
import { checksum, openScratch, row, schema, writeDataFiles, type Scratch } from './test-fixtures.js';
import type { RewrittenFile } from './rewrite.js';

let s: Scratch;
beforeAll(async () => {
  s = await openScratch();
});
afterAll(() => s?.close());

describe('a rewrite of 12 small roller files into one', () => {
  let inputs: ReturnType<typeof writeDataFiles>;
  let out: RewrittenFile[];
  beforeAll(async () => {
    inputs = writeDataFiles(s.engine.scratchDir, 'small', 12, 250);
    out = await s.engine.rewriteDataFiles({
      schema, files: inputs, targetFileSizeBytes: 128 * 1024 * 1024, outputDir: join(s.engine.scratchDir, 'out-small'), prefix: 'compacted',
    });
  });

  test('one file, named from the prefix, every row exactly once', async () => {
    expect(out.map((f) => f.localPath)).toEqual([join(s.engine.scratchDir, 'out-small', 'compacted-0.parquet')]);
    const before = await checksum(s.engine, inputs.map((f) => f.localPath));
    expect(before.rows).toBe(3000n);
    expect(await checksum(s.engine, [out[0].localPath])).toEqual(before);
    expect(await s.engine.countRows([out[0].localPath])).toBe(3000n);
  });

  test('rows read back as the values written, bigints for longs', async () => {
    const got = await s.engine.readRows(out[0].localPath);
    got.sort((a, b) => Number(a.id as bigint) - Number(b.id as bigint));
    expect(got).toHaveLength(3000);
    expect(got[1]).toEqual({
      id: 1n, category: 'beta', ts: 1_700_000_001_000_003n, amount: '-2499.01', score: (1 % 997) / 7 - 50, qty: 1,
      flag: false, day: 19_001, uid: '00000001-0000-4000-8000-000000000001', blob: new Uint8Array([1, 0, 0x5c, 0]),
      loc: { lat: -89.5, place: { city: 'city-1' } }, tags: ['t1', null, 'u1'], attrs: [{ key: 'k1', value: 3n }],
      local_ts: 1_599_999_999_999_993n, at: 1_000_123n,
      big: '1000000007.1234', ratio: 0.125,
    });
    expect((await s.engine.readRows(out[0].localPath, 5)).length).toBe(5);
  });

  test('every column, nested ones included, carries its Iceberg field id', async () => {
    const cols = await s.engine.query(`SELECT name, field_id FROM parquet_schema('${out[0].localPath}') WHERE field_id IS NOT NULL`);
    expect(cols.map((c) => [c.name, Number(c.field_id)])).toEqual([
      ['id', 1], ['category', 2], ['ts', 3], ['amount', 4], ['score', 5], ['qty', 6], ['flag', 7], ['day', 8], ['uid', 9],
      ['blob', 10], ['loc', 11], ['lat', 12], ['place', 13], ['city', 14], ['tags', 15], ['element', 16], ['attrs', 17],
      ['key', 18], ['value', 19], ['local_ts', 20], ['at', 21], ['big', 22], ['ratio', 23],
    ]);
    // The only elements without one are Parquet's own: the root and the repeated list/map groups.
    const without = await s.engine.query(`SELECT name FROM parquet_schema('${out[0].localPath}') WHERE field_id IS NULL`);
    expect(without.map((c) => c.name)).toEqual(['duckdb_schema', 'list', 'key_value']);
  });

  test('zstd in the footer, the table schema in the key-value metadata', async () => {
    const codecs = await s.engine.query(`SELECT DISTINCT compression FROM parquet_metadata('${out[0].localPath}')`);
    expect(codecs).toEqual([{ compression: 'ZSTD' }]);
    const kv = await s.engine.query(`SELECT decode(value) AS v FROM parquet_kv_metadata('${out[0].localPath}') WHERE decode(key) = 'iceberg.schema'`);
    expect(JSON.parse(kv[0].v as string)).toEqual(schema);
  });

  test("metrics equal @floe/iceberg's writer's for the same rows, wherever both have one", async () => {
    const rows = Array.from({ length: 3000 }, (_, i) => row(i));
    const theirs = writeParquetDataFile({ schema, rows }).stats;
    const ours = out[0].stats;
    expect(ours.record_count).toBe(3000n);
    expect(ours.file_size_in_bytes).toBe(BigInt(statSync(out[0].localPath).size));
    for (const metric of ['value_counts', 'null_value_counts', 'nan_value_counts', 'lower_bounds', 'upper_bounds'] as const) {
      expect(sharedEntries(ours, theirs, metric)).toEqual(sharedEntries(theirs, ours, metric));
    }
    // Not vacuous: ours has every count theirs has, and bounds for every primitive leaf outside lists and maps.
    expect([...ours.value_counts.keys()].sort(byNumber)).toEqual([...theirs.value_counts.keys()].sort(byNumber));
    expect([...ours.null_value_counts.keys()].sort(byNumber)).toEqual([...theirs.null_value_counts.keys()].sort(byNumber));
    expect([...ours.nan_value_counts.keys()].sort(byNumber)).toEqual([5, 12, 23]);
    expect([...ours.lower_bounds.keys()].sort(byNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 20, 21, 22, 23]);
    expect([...ours.upper_bounds.keys()].sort(byNumber)).toEqual([...theirs.upper_bounds.keys()].sort(byNumber));
    expect([...ours.column_sizes.keys()].sort(byNumber)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 18, 19, 20, 21, 22, 23]);
    expect(ours.split_offsets[0]).toBe(4n);
  });
});

test('input above the target becomes several files near it, every row once', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'many', 40, 1_000);
  const target = 256 * 1024;
  const out = await s.engine.rewriteDataFiles({
    schema, files: inputs, targetFileSizeBytes: target, outputDir: join(s.engine.scratchDir, 'out-many'), prefix: 'bin',
  });
  expect(out.length).toBeGreaterThan(2);
  expect(out.map((f) => f.localPath.split('/').pop())).toEqual(out.map((_, n) => `bin-${n}.parquet`));
  // Even shares of the output (here 4 of about 86% of the target), cut at the inputs' row groups (here each
  // about a tenth of the target); the first share rests on a small probe's ratio, so it is the roughest.
  for (const f of out) {
    expect(Number(f.stats.file_size_in_bytes)).toBeGreaterThan(target * 0.6);
    expect(Number(f.stats.file_size_in_bytes)).toBeLessThan(target * 1.25);
  }
  expect(out.reduce((n, f) => n + f.stats.record_count, 0n)).toBe(40_000n);
  expect(await checksum(s.engine, out.map((f) => f.localPath))).toEqual(await checksum(s.engine, inputs.map((f) => f.localPath)));
});

test('input that fits the target as it is but grows in the rewrite is split by the size it came to', async () => {
  // Row lineage adds two long columns to a table of a flag and a scrambled number: the output outgrows
  // an input that fitted the target; the whole write shows the ratio, and the input is then cut into files near it.
  const flags: Schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'flag', required: true, type: 'boolean' }, { id: 2, name: 'n', required: true, type: 'long' }] };
  const written = writeDataFiles(s.engine.scratchDir, 'grows', 12, 5_000, { schema: flags, rowOf: (i) => ({ flag: i % 3 === 0, n: (BigInt(i) * 2654435761n) % 4294967296n }) });
  const inputs = [];
  for (const [n, f] of written.entries()) {
    // as the engine writes them (zstd), each on its own
    const [own] = await s.engine.rewriteDataFiles({ schema: flags, files: [f], targetFileSizeBytes: 1e9, outputDir: join(s.engine.scratchDir, 'grows-in'), prefix: `i${n}` });
    inputs.push({ ...f, localPath: own.localPath, sequenceNumber: 1n, firstRowId: BigInt(n * 5_000) });
  }
  const list = inputs.map((f) => `'${f.localPath}'`).join(', ');
  const [input] = await s.engine.query(`SELECT sum(total_compressed_size)::BIGINT AS b FROM parquet_metadata([${list}])`);
  const target = Math.ceil(Number(input.b) * 1.05);
  const out = await s.engine.rewriteDataFiles({
    schema: flags, files: inputs, targetFileSizeBytes: target, outputDir: join(s.engine.scratchDir, 'out-grows'), prefix: 'g', rowLineage: true,
  });
  expect(out.length).toBeGreaterThan(1);
  for (const f of out) expect(Number(f.stats.file_size_in_bytes)).toBeLessThan(target * 1.25);
  const [rows] = await s.engine.query(
    `SELECT count(*) AS n, count(DISTINCT _row_id) AS ids, min(_row_id) AS lo, max(_row_id) AS hi, count(*) FILTER (WHERE flag) AS t FROM read_parquet([${out.map((f) => `'${f.localPath}'`).join(', ')}])`);
  expect(rows).toEqual({ n: 60_000n, ids: 60_000n, lo: 0n, hi: 59_999n, t: 20_000n });
});

test('input under the target comes out as one file', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'fits', 12, 1_000);
  const input = await s.engine.query(`SELECT sum(total_compressed_size)::BIGINT AS b FROM parquet_metadata([${inputs.map((f) => `'${f.localPath}'`).join(', ')}])`);
  const target = Math.ceil(Number(input[0].b) * 1.5);
  const out = await s.engine.rewriteDataFiles({ schema, files: inputs, targetFileSizeBytes: target, outputDir: join(s.engine.scratchDir, 'out-fits'), prefix: 'f' });
  expect(out).toHaveLength(1);
  expect(out[0].stats.record_count).toBe(12_000n);
  expect(await checksum(s.engine, out.map((f) => f.localPath))).toEqual(await checksum(s.engine, inputs.map((f) => f.localPath)));
});

test('one large input file is split at its row groups', async () => {
  const [input] = writeDataFiles(s.engine.scratchDir, 'large', 1, 30_000, { rowGroupSize: 3_000 });
  const out = await s.engine.rewriteDataFiles({
    schema, files: [input], targetFileSizeBytes: 256 * 1024, outputDir: join(s.engine.scratchDir, 'out-large'), prefix: 'l',
  });
  expect(out.length).toBeGreaterThan(1);
  expect(out.every((f) => f.stats.record_count % 3_000n === 0n)).toBe(true);
  expect(await checksum(s.engine, out.map((f) => f.localPath))).toEqual(await checksum(s.engine, [input.localPath]));
  const firstIds = await Promise.all(out.map(async (f) => (await s.engine.readRows(f.localPath, 1))[0].id));
  expect(firstIds).toEqual(out.map((_, n) => out.slice(0, n).reduce((sum, f) => sum + f.stats.record_count, 0n)));
});

test('a sort order is honoured across the output files', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'sorted', 4, 500);
  const out = await s.engine.rewriteDataFiles({
    schema, files: inputs, targetFileSizeBytes: 64 * 1024 * 1024, outputDir: join(s.engine.scratchDir, 'out-sorted'), prefix: 'p',
    sortOrder: { 'order-id': 1, fields: [
      { transform: 'identity', 'source-id': 2, direction: 'asc', 'null-order': 'nulls-first' },
      { transform: 'day', 'source-id': 3, direction: 'desc', 'null-order': 'nulls-last' },
    ] },
  });
  const rows = await s.engine.readRows(out[0].localPath);
  const keys = rows.map((r) => ({ category: r.category as string | null, ts: r.ts as bigint }));
  const sorted = [...keys].sort((a, b) => (a.category === b.category ? (a.ts > b.ts ? -1 : a.ts < b.ts ? 1 : 0)
    : a.category === null ? -1 : b.category === null ? 1 : Buffer.compare(Buffer.from(a.category), Buffer.from(b.category))));
  expect(keys).toEqual(sorted);
  await expect(s.engine.rewriteDataFiles({
    schema, files: inputs, targetFileSizeBytes: 1e6, outputDir: join(s.engine.scratchDir, 'out-bucket'), prefix: 'p',
    sortOrder: { fields: [{ transform: 'bucket[4]', 'source-id': 1, direction: 'asc', 'null-order': 'nulls-first' }] },
  })).rejects.toThrow(UnsupportedSchemaError);
});

test('columns are found by field id: a renamed, reordered and added column reads right', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'evolve', 1, 10);
  const evolved = { type: 'struct' as const, 'schema-id': 1, fields: [
    { id: 6, name: 'quantity', required: false, type: 'long' }, // renamed, moved first, promoted int -> long
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 99, name: 'added', required: false, type: 'string' },
    { id: 2, name: `we"ird 'name`, required: false, type: 'string' }, // renamed to something that needs quoting
  ] };
  const [out] = await s.engine.rewriteDataFiles({
    schema: evolved, files: inputs, targetFileSizeBytes: 1e6, outputDir: join(s.engine.scratchDir, 'out-evolve'), prefix: 'e',
  });
  const rows = await s.engine.readRows(out.localPath, 3);
  const weird = `we"ird 'name`;
  expect(rows).toEqual([
    { quantity: 0n, id: 0n, added: null, [weird]: 'alpha' }, { quantity: 1n, id: 1n, added: null, [weird]: 'beta' },
    { quantity: -2n, id: 2n, added: null, [weird]: 'gamma' },
  ]);
  expect(out.stats.null_value_counts.get(99)).toBe(10n);
  expect(out.stats.lower_bounds.has(99)).toBe(false);
});

test('a file without field ids is refused rather than read as nulls', async () => {
  const path = join(s.engine.scratchDir, 'no-ids.parquet');
  await s.engine.query(`COPY (SELECT 1::BIGINT AS id) TO '${path}' (FORMAT parquet)`);
  await expect(s.engine.rewriteDataFiles({
    schema, files: [{ localPath: path, filePath: 's3://x/no-ids.parquet' }], targetFileSizeBytes: 1e6,
    outputDir: join(s.engine.scratchDir, 'out-no-ids'), prefix: 'n',
  })).rejects.toThrow(/no Iceberg field ids/);
});

test('types the engine cannot write faithfully are refused, not written wrong', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'refuse', 1, 1);
  for (const type of ['fixed[4]', 'timestamptz_ns', 'variant']) {
    await expect(s.engine.rewriteDataFiles({
      schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type }] }, files: inputs, targetFileSizeBytes: 1e6,
      outputDir: join(s.engine.scratchDir, 'out-refuse'), prefix: 'r',
    })).rejects.toThrow(UnsupportedSchemaError);
  }
});

test('an existing output is never overwritten, and inputs must be in scratch', async () => {
  const inputs = writeDataFiles(s.engine.scratchDir, 'twice', 1, 5);
  const request = { schema, files: inputs, targetFileSizeBytes: 1e6, outputDir: join(s.engine.scratchDir, 'out-twice'), prefix: 'x' };
  await s.engine.rewriteDataFiles(request);
  await expect(s.engine.rewriteDataFiles(request)).rejects.toThrow(/choose another prefix/);
  await expect(s.engine.rewriteDataFiles({ ...request, prefix: 'y', files: [{ localPath: '/etc/passwd', filePath: 'x' }] }))
    .rejects.toThrow(/outside the scratch directory/);
  await expect(s.engine.rewriteDataFiles({ ...request, prefix: '../z' })).rejects.toThrow(/prefix/);
});

const byNumber = (a: number, b: number) => a - b;

/** A metric's entries whose key the other file's metrics also have (Uint8Arrays as arrays, for a readable diff). */
function sharedEntries(a: DataFileStats, b: DataFileStats, metric: keyof DataFileStats) {
  const mine = a[metric] as Map<number, bigint | Uint8Array>;
  const theirs = b[metric] as Map<number, bigint | Uint8Array>;
  return [...mine].filter(([k]) => theirs.has(k)).sort(([x], [y]) => x - y)
    .map(([k, v]) => [k, v instanceof Uint8Array ? [...v] : v]);
}
