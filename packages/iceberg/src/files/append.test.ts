import { stringifyJson } from '../metadata/json.js';
import { parseTableUpdates, type FormatVersion, type Schema } from '../metadata/model.js';
import { buildAppend, type AppendResult } from './append.js';
import { readManifest } from './manifest.js';
import { readManifestList } from './manifest-list.js';
import { parquetDataFile, writeParquetDataFile } from './parquet.js';
import { countRows } from './row-count.js';
import { BIG_PARENT_ID, BIG_SNAPSHOT_ID, byCategoryAndDay, dataFile, memoryStore, schema, unpartitioned } from './test-fixtures.js';

function written(path: string, n: number) {
  const rows = Array.from({ length: n }, (_, i) => ({ id: BigInt(i), category: i % 2 ? 'a' : 'b', ts: new Date(i * 1000), amount: '1.50' }));
  const { bytes, stats } = writeParquetDataFile({ schema, rows });
  return { bytes, file: parquetDataFile(path, stats) };
}

async function twoAppends(v: FormatVersion) {
  const store = memoryStore();
  const upload = (r: AppendResult) => r.uploads.forEach((u) => store.put(u.path, u.bytes));
  const a = written('s3://b/t/data/a.parquet', 3);
  const first = await buildAppend({
    formatVersion: v, schema, spec: unpartitioned, parent: null, lastSequenceNumber: 0n, nextRowId: v === 3 ? 0n : undefined,
    files: [a.file], snapshotId: BIG_PARENT_ID, manifestPath: 'm1.avro', manifestListPath: 'snap-1.avro', read: store.read, timestampMs: 1,
  });
  upload(first);
  const b = written('s3://b/t/data/b.parquet', 5);
  const c = written('s3://b/t/data/c.parquet', 2);
  const second = await buildAppend({
    formatVersion: v, schema, spec: unpartitioned, parent: first.snapshot, lastSequenceNumber: 1n, nextRowId: first.nextRowId,
    files: [b.file, c.file], snapshotId: BIG_SNAPSHOT_ID, manifestPath: 'm2.avro', manifestListPath: 'snap-2.avro', read: store.read,
    timestampMs: 2, summary: { 'engine-name': 'floe' },
  });
  upload(second);
  return { store, first, second };
}

describe.each([1, 2, 3] as FormatVersion[])('append v%i', (v) => {
  test('first snapshot: summary, sequence number, uploads', async () => {
    const { first } = await twoAppends(v);
    expect(first.uploads.map((u) => u.path)).toEqual(['m1.avro', 'snap-1.avro']);
    expect(first.snapshot).toEqual({
      'snapshot-id': BIG_PARENT_ID,
      ...(v >= 2 ? { 'sequence-number': 1n } : {}),
      'timestamp-ms': 1n,
      'manifest-list': 'snap-1.avro',
      'schema-id': 0,
      summary: {
        operation: 'append', 'added-data-files': '1', 'added-records': '3', 'added-files-size': expect.any(String),
        'changed-partition-count': '1', 'total-records': '3', 'total-files-size': expect.any(String), 'total-data-files': '1',
        'total-delete-files': '0', 'total-position-deletes': '0', 'total-equality-deletes': '0',
      },
      ...(v === 3 ? { 'first-row-id': 0n, 'added-rows': 3n } : {}),
    });
    expect(first.nextRowId).toBe(v === 3 ? 3n : undefined);
  });

  test('second snapshot carries the parent manifests forward', async () => {
    const { store, second } = await twoAppends(v);
    const s = second.snapshot;
    expect(s['parent-snapshot-id']).toBe(BIG_PARENT_ID);
    expect(s['sequence-number']).toBe(v >= 2 ? 2n : undefined);
    expect(s.summary).toMatchObject({ 'engine-name': 'floe', 'added-data-files': '2', 'added-records': '7', 'total-records': '10', 'total-data-files': '3' });
    expect(s['first-row-id']).toBe(v === 3 ? 3n : undefined);
    expect(s['added-rows']).toBe(v === 3 ? 7n : undefined);

    const list = readManifestList(await store.read('snap-2.avro'));
    expect(list.metadata['parent-snapshot-id']).toBe(String(BIG_PARENT_ID));
    expect(list.manifests.map((m) => [m.manifest_path, m.added_snapshot_id, m.sequence_number, m.first_row_id])).toEqual([
      ['m2.avro', BIG_SNAPSHOT_ID, v >= 2 ? 2n : 0n, v === 3 ? 3n : null],
      ['m1.avro', BIG_PARENT_ID, v >= 2 ? 1n : 0n, v === 3 ? 0n : null],
    ]);
    const [newer, older] = await Promise.all(list.manifests.map(async (m) => readManifest(await store.read(m.manifest_path), m)));
    expect(newer.entries.map((e) => [e.data_file.file_path, e.sequence_number, e.data_file.first_row_id])).toEqual([
      ['s3://b/t/data/b.parquet', v >= 2 ? 2n : 0n, v === 3 ? 3n : null],
      ['s3://b/t/data/c.parquet', v >= 2 ? 2n : 0n, v === 3 ? 8n : null],
    ]);
    expect(older.entries[0].snapshot_id).toBe(BIG_PARENT_ID);
    expect(older.entries[0].data_file.value_counts!.get(1)).toBe(3n);

    // the catalog's row count agrees from the summary and from the list alone
    expect(await countRows(s, store.read)).toMatchObject({ rows: 10, rows_source: 'snapshot_summary' });
    expect(await countRows({ ...s, summary: undefined }, store.read)).toMatchObject({ rows: 10, rows_source: 'manifest_list', data_files: 3 });
  });
});

test('partitioned appends count changed partitions and keep bigint ids exact in JSON', async () => {
  const store = memoryStore();
  const base = written('x', 1).file;
  const p = (category: string) => ({ category, ts_day: 1, 'id-bucket': 0, amount: 150n });
  const r = await buildAppend({
    formatVersion: 2, schema, spec: byCategoryAndDay, lastSequenceNumber: 41n, snapshotId: BIG_SNAPSHOT_ID,
    files: [{ ...base, file_path: 'p1', partition: p('a') }, { ...base, file_path: 'p2', partition: p('a') }, { ...base, file_path: 'p3', partition: p('b') }],
    manifestPath: 'm.avro', manifestListPath: 'l.avro', read: store.read,
  });
  expect(r.snapshot.summary['changed-partition-count']).toBe('2');
  expect(r.snapshot['sequence-number']).toBe(42n);
  const json = stringifyJson({ action: 'add-snapshot', snapshot: r.snapshot });
  expect(json).toContain(`"snapshot-id":${BIG_SNAPSHOT_ID}`);
  const m = readManifestList(r.uploads[1].bytes).manifests[0];
  expect(m.partitions).toHaveLength(4);
  expect(m.partitions![0].contains_null).toBe(false);
});

test('the snapshot is a table metadata Snapshot: add-snapshot takes it as built', async () => {
  const { second } = await twoAppends(3);
  expect(parseTableUpdates([{ action: 'add-snapshot', snapshot: second.snapshot }])).toEqual([
    { action: 'add-snapshot', snapshot: second.snapshot },
  ]);
});

test('binary and NaN partition values count as partitions like any other value', async () => {
  const store = memoryStore();
  const bytesAndDouble: Schema = {
    type: 'struct', 'schema-id': 0,
    fields: [{ id: 1, name: 'b', required: false, type: 'binary' }, { id: 2, name: 'd', required: false, type: 'double' }],
  };
  const spec = {
    'spec-id': 0,
    fields: [
      { 'source-id': 1, 'field-id': 1000, name: 'b', transform: 'identity' },
      { 'source-id': 2, 'field-id': 1001, name: 'd', transform: 'identity' },
    ],
  };
  const r = await buildAppend({
    formatVersion: 2, schema: bytesAndDouble, spec, lastSequenceNumber: 0n, snapshotId: 1n, manifestPath: 'm.avro', manifestListPath: 'l.avro',
    read: store.read,
    files: [
      dataFile('p1', 1n, { b: new Uint8Array([1]), d: NaN }),
      dataFile('p2', 1n, { b: new Uint8Array([1]), d: NaN }),
      dataFile('p3', 1n, { b: new Uint8Array([2]), d: NaN }),
      dataFile('p4', 1n, { b: new Uint8Array([2]), d: 0.5 }),
    ],
  });
  expect(r.snapshot.summary['changed-partition-count']).toBe('3');
});
