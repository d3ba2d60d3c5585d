import { writeAvroContainer } from './avro.js';
import { EntryStatus, writeManifest, type DataFile, type ManifestEntry } from './manifest.js';
import { manifestFileAvroSchema, writeManifestList, type ManifestFile } from './manifest-list.js';
import { countRows } from './row-count.js';
import { dataFile, memoryStore, schema, unpartitioned } from './test-fixtures.js';
import type { FormatVersion } from '../metadata/model.js';

/** Records the paths read (jest.fn needs @jest/globals in native ESM). */
function recording(read: (path: string) => Promise<Uint8Array>) {
  const calls: string[] = [];
  return { calls, read: (path: string) => (calls.push(path), read(path)) };
}

const added = (f: DataFile): ManifestEntry => ({ status: EntryStatus.ADDED, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: f });

/** A table with 30 data rows in two files, plus optional delete files. */
function table(v: FormatVersion, deletes: { pos?: bigint; eq?: bigint } = {}) {
  const store = memoryStore();
  const data = writeManifest({
    formatVersion: v, schema, spec: unpartitioned, snapshotId: 1n, path: 'm-data.avro',
    entries: [
      added(dataFile('a.parquet', 10n)),
      added(dataFile('b.parquet', 20n)),
      // deleted entries are history, never counted
      { status: EntryStatus.DELETED, snapshot_id: 1n, sequence_number: 1n, file_sequence_number: 1n, data_file: dataFile('old.parquet', 99n) },
    ],
  });
  store.put('m-data.avro', data.bytes);
  const manifests = [data.manifestFile];
  const deleteEntries: ManifestEntry[] = [];
  if (deletes.pos) deleteEntries.push(added({ ...dataFile('pos.parquet', deletes.pos), content: 1 }));
  if (deletes.eq) deleteEntries.push(added({ ...dataFile('eq.parquet', deletes.eq), content: 2, equality_ids: [1] }));
  if (deleteEntries.length) {
    const del = writeManifest({ formatVersion: v, schema, spec: unpartitioned, snapshotId: 1n, path: 'm-del.avro', content: 'deletes', entries: deleteEntries });
    store.put('m-del.avro', del.bytes);
    manifests.push(del.manifestFile);
  }
  const list = writeManifestList({ formatVersion: v, snapshotId: 1n, parentSnapshotId: null, sequenceNumber: 1n, firstRowId: 0n, manifests });
  store.put('list.avro', list.bytes);
  return { store, manifests: list.manifests };
}

test('no snapshot: an empty table', async () => {
  expect(await countRows(null, async () => new Uint8Array())).toEqual({
    rows: 0, rows_source: 'no_snapshot', rows_is_exact: true, data_files: 0, delete_files: 0,
  });
});

test('snapshot summary, without reading anything', async () => {
  const rec = recording(async () => new Uint8Array());
  const r = await countRows({ 'snapshot-id': 1n, 'manifest-list': 'x', summary: {
    operation: 'append', 'total-records': '120', 'total-data-files': '3', 'total-delete-files': '0',
    'total-position-deletes': '0', 'total-equality-deletes': '0',
  } }, rec.read);
  expect(r).toEqual({ rows: 120, rows_source: 'snapshot_summary', rows_is_exact: true, data_files: 3, delete_files: 0 });
  expect(rec.calls).toEqual([]);
});

test('snapshot summary net of deletes; equality deletes make it inexact', async () => {
  const summary = { 'total-records': '120', 'total-position-deletes': '5', 'total-equality-deletes': '0', 'total-data-files': '3', 'total-delete-files': '1' };
  expect(await countRows({ 'snapshot-id': 1n, summary }, async () => new Uint8Array())).toEqual({
    rows: 115, rows_source: 'snapshot_summary_net_of_deletes', rows_is_exact: true,
    rows_gross: 120, position_delete_rows: 5, equality_delete_rows: 0, data_files: 3, delete_files: 1,
  });
  const r = await countRows({ 'snapshot-id': 1n, summary: { ...summary, 'total-equality-deletes': '2' } }, async () => new Uint8Array());
  expect(r).toMatchObject({ rows: 113, rows_is_exact: false, equality_delete_rows: 2 });
});

test('manifest list counts when the summary has no totals', async () => {
  const { store } = table(2);
  const r = await countRows({ 'snapshot-id': 1n, 'manifest-list': 'list.avro', summary: { operation: 'append' } }, store.read);
  expect(r).toEqual({ rows: 30, rows_source: 'manifest_list', rows_is_exact: true, data_files: 2, delete_files: 0 });
});

test('manifest list net of deletes reads only the delete manifests to classify them', async () => {
  const { store } = table(2, { pos: 4n, eq: 1n });
  const rec = recording(store.read);
  const r = await countRows({ 'snapshot-id': 1n, 'manifest-list': 'list.avro' }, rec.read);
  expect(r).toEqual({
    rows: 25, rows_source: 'manifest_list', rows_is_exact: false, rows_gross: 30,
    position_delete_rows: 4, equality_delete_rows: 1, data_files: 2, delete_files: 2,
  });
  expect(rec.calls).toEqual(['list.avro', 'm-del.avro']);
});

test('reading manifests when the list lacks counts (optional in v1)', async () => {
  const { store, manifests } = table(1);
  const list = writeManifestList({
    formatVersion: 1, snapshotId: 1n, parentSnapshotId: null, sequenceNumber: 0n,
    manifests: manifests.map((m) => ({ ...m, added_rows_count: null, existing_rows_count: null, added_files_count: null })),
  });
  store.put('list.avro', list.bytes);
  expect(await countRows({ 'snapshot-id': 1n, 'manifest-list': 'list.avro' }, store.read)).toEqual({
    rows: 30, rows_source: 'manifests', rows_is_exact: true, data_files: 2, delete_files: 0,
  });
  // v1 snapshots may list manifests inline instead of a manifest list
  expect(await countRows({ 'snapshot-id': 1n, manifests: ['m-data.avro'] }, store.read)).toMatchObject({ rows: 30, rows_source: 'manifests' });
});

test('reading manifests net of deletes', async () => {
  const { store, manifests } = table(2, { pos: 4n });
  // a v2 list whose writer left counts out: forces reading every manifest
  const loose = manifestFileAvroSchema(2) as any;
  for (const f of loose.fields) if ([504, 505, 506, 512, 513, 514].includes(f['field-id'])) f.type = ['null', f.type];
  const records = manifests.map((m) => ({ ...m, added_rows_count: null, partitions: null }));
  store.put('list.avro', writeAvroContainer({ schema: loose, records, metadata: { 'format-version': '2' } }));
  expect(await countRows({ 'snapshot-id': 1n, 'manifest-list': 'list.avro' }, store.read)).toEqual({
    rows: 26, rows_source: 'manifests_net_of_deletes', rows_is_exact: true, rows_gross: 30,
    position_delete_rows: 4, equality_delete_rows: 0, data_files: 2, delete_files: 1,
  });
});

test('no manifest list and no summary totals', async () => {
  expect(await countRows({ 'snapshot-id': 1n, summary: { operation: 'append' } }, async () => new Uint8Array())).toEqual({
    rows: null, rows_source: 'no_manifest_list', rows_is_exact: false, data_files: null, delete_files: null,
  });
});
