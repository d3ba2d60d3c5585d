// Deletes applied by a rewrite (real DuckDB, real files): no deleted row comes
// back, every other row comes back once; v3 row lineage survives the rewrite.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeParquetDataFile, type Schema } from '@floe/iceberg';
import type { DataFileInput } from './rewrite.js';
import { openScratch, schema, writeDataFiles, type Scratch } from './test-fixtures.js';

let s: Scratch;
let inputs: DataFileInput[];
beforeAll(async () => {
  s = await openScratch();
  // ids 0..399, 100 per file, data sequence numbers 1..4
  inputs = writeDataFiles(s.engine.scratchDir, 'data', 4, 100).map((f, n) => ({ ...f, sequenceNumber: BigInt(n + 1) }));
});
afterAll(() => s?.close());

const POSITION_DELETE_SCHEMA: Schema = { type: 'struct', fields: [
  { id: 2147483546, name: 'file_path', required: true, type: 'string' },
  { id: 2147483545, name: 'pos', required: true, type: 'long' },
] };

let written = 0;
function deleteFile(fileSchema: Schema, rows: Record<string, unknown>[]): string {
  const dir = join(s.engine.scratchDir, 'deletes');
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `delete-${written++}.parquet`);
  writeFileSync(path, writeParquetDataFile({ schema: fileSchema, rows }).bytes);
  return path;
}

async function idsAfter(request: Partial<Parameters<Scratch['engine']['rewriteDataFiles']>[0]>): Promise<bigint[]> {
  const out = await s.engine.rewriteDataFiles({
    schema, files: inputs, targetFileSizeBytes: 64 * 1024 * 1024, outputDir: join(s.engine.scratchDir, `out-${written++}`), prefix: 'c', ...request,
  });
  const rows = (await Promise.all(out.map((f) => s.engine.readRows(f.localPath)))).flat();
  return rows.map((r) => r.id as bigint).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const allIds = (except: bigint[]) => Array.from({ length: 400 }, (_, i) => BigInt(i)).filter((i) => !except.includes(i));

test('position deletes, given as rows and as v2 position delete files', async () => {
  const file = deleteFile(POSITION_DELETE_SCHEMA, [
    { file_path: inputs[1].filePath, pos: 10n },
    { file_path: inputs[1].filePath, pos: 11n },
    { file_path: 's3://t-bucket/ns/tbl/data/not-an-input.parquet', pos: 0n },
  ]);
  const ids = await idsAfter({ positionDeletes: {
    rows: [
      { file_path: inputs[0].filePath, pos: 0 },
      { file_path: inputs[0].filePath, pos: 5n },
      { file_path: inputs[2].filePath, pos: 99n },
      { file_path: inputs[3].filePath, pos: 100n }, // past the end: deletes nothing
      { file_path: 's3://t-bucket/ns/tbl/data/other.parquet', pos: 1n }, // not an input: ignored
    ],
    localPaths: [file],
  } });
  expect(ids).toEqual(allIds([0n, 5n, 110n, 111n, 299n]));
});

test('equality deletes: every listed column must match, and null matches null', async () => {
  const byCategory = deleteFile({ type: 'struct', fields: [schema.fields[1]] }, [{ category: 'beta' }, { category: null }]);
  const byIdAndQty = deleteFile({ type: 'struct', fields: [schema.fields[0], schema.fields[5]] }, [
    { id: 20n, qty: -20 }, // matches row 20
    { id: 21n, qty: 0 }, // row 21 has qty 21: no match
  ]);
  const ids = await idsAfter({ equalityDeletes: [
    { localPath: byCategory, equalityIds: [2] },
    { localPath: byIdAndQty, equalityIds: [6, 1] },
  ] });
  // category: null when i % 7 === 3, 'beta' when i % 5 === 1 (and not i % 7 === 3)
  const deleted = allIds([]).filter((i) => Number(i) % 7 === 3 || Number(i) % 5 === 1);
  expect(ids).toEqual(allIds([...deleted, 20n]));
});

test('an equality delete applies only to data files with a smaller sequence number', async () => {
  const path = deleteFile({ type: 'struct', fields: [schema.fields[0]] }, [{ id: 150n }, { id: 250n }, { id: 301n }]);
  // seq 3: deletes from files 0 and 1 (seq 1, 2), not from file 2 (seq 3, the same) or 3 (seq 4)
  expect(await idsAfter({ equalityDeletes: [{ localPath: path, equalityIds: [1], sequenceNumber: 3n }] })).toEqual(allIds([150n]));
  await expect(idsAfter({
    files: inputs.map(({ sequenceNumber: _, ...f }) => f), equalityDeletes: [{ localPath: path, equalityIds: [1], sequenceNumber: 3n }],
  })).rejects.toThrow(/sequence number/);
});

test('when every row is deleted there is no output file', async () => {
  const out = await s.engine.rewriteDataFiles({
    schema, files: [inputs[0]], targetFileSizeBytes: 1e6, outputDir: join(s.engine.scratchDir, 'out-none'), prefix: 'c',
    positionDeletes: { rows: Array.from({ length: 100 }, (_, pos) => ({ file_path: inputs[0].filePath, pos })) },
  });
  expect(out).toEqual([]);
});

test('row lineage: _row_id and _last_updated_sequence_number are inherited, then kept', async () => {
  const lineageInputs = inputs.slice(0, 2).map((f, n) => ({ ...f, firstRowId: BigInt(1000 * (n + 1)), sequenceNumber: BigInt(7 + n) }));
  const [first] = await s.engine.rewriteDataFiles({
    schema, files: lineageInputs, targetFileSizeBytes: 1e9, outputDir: join(s.engine.scratchDir, 'out-lineage'), prefix: 'a', rowLineage: true,
    positionDeletes: { rows: [{ file_path: lineageInputs[0].filePath, pos: 3 }] },
  });
  const rows = byId(await s.engine.readRows(first.localPath));
  expect(rows.slice(2, 4).map((r) => [r.id, r._row_id, r._last_updated_sequence_number])).toEqual([[2n, 1002n, 7n], [4n, 1004n, 7n]]);
  expect(rows[150]).toMatchObject({ id: 151n, _row_id: 2051n, _last_updated_sequence_number: 8n });
  const ids = await s.engine.query(`SELECT name, field_id FROM parquet_schema('${first.localPath}') WHERE name LIKE '\\_%' ESCAPE '\\'`);
  expect(ids).toEqual([{ name: '_row_id', field_id: 2147483540n }, { name: '_last_updated_sequence_number', field_id: 2147483539n }]);
  expect(first.stats.lower_bounds.has(2147483540)).toBe(true);

  // Rewritten again, as a file with its own (new) first_row_id and sequence number: the values it holds win.
  const [second] = await s.engine.rewriteDataFiles({
    schema, files: [{ localPath: first.localPath, filePath: 's3://t-bucket/ns/tbl/data/a-0.parquet', firstRowId: 99_999n, sequenceNumber: 12n }],
    targetFileSizeBytes: 1e9, outputDir: join(s.engine.scratchDir, 'out-lineage-2'), prefix: 'b', rowLineage: true,
  });
  expect(byId(await s.engine.readRows(second.localPath))).toEqual(rows);
});

/** Without a sort order, a join (here lineage's) may move whole chunks of rows: compare in id order. */
const byId = (rows: Record<string, unknown>[]) => rows.sort((a, b) => Number(a.id as bigint) - Number(b.id as bigint));
