import type { FormatVersion, Snapshot } from '../metadata/model.js';
import { buildAppend, type AppendResult } from './append.js';
import { EntryStatus, readManifest } from './manifest.js';
import { readManifestList } from './manifest-list.js';
import { StaleReplace, buildReplace, type ReplaceOptions, type ReplaceResult } from './replace.js';
import { countRows } from './row-count.js';
import { dataFile, memoryStore, schema, unpartitioned } from './test-fixtures.js';

// Five appends of one file each, then replaces over them.
async function fiveAppends(v: FormatVersion) {
  const store = memoryStore();
  const upload = (r: AppendResult | ReplaceResult) => r.uploads.forEach((u) => store.put(u.path, u.bytes));
  let parent: Snapshot | null = null;
  let nextRowId = 0n;
  for (let i = 1; i <= 5; i++) {
    const r: AppendResult = await buildAppend({
      formatVersion: v, schema, spec: unpartitioned, parent, lastSequenceNumber: BigInt(i - 1), nextRowId: v === 3 ? nextRowId : undefined,
      files: [dataFile(`s3://b/t/data/f${i}.parquet`, BigInt(i))], snapshotId: BigInt(i), manifestPath: `m${i}.avro`, manifestListPath: `l${i}.avro`,
      read: store.read, timestampMs: i,
    });
    upload(r);
    parent = r.snapshot;
    nextRowId = r.nextRowId ?? 0n;
  }
  const base = (over: Partial<ReplaceOptions>): ReplaceOptions => ({
    formatVersion: v, schema, spec: (id) => (id === 0 ? unpartitioned : undefined), parent: parent!, lastSequenceNumber: 5n, nextRowId: v === 3 ? nextRowId : undefined,
    snapshotId: 99n, targetManifestBytes: 8 * 1024 * 1024, manifestPath: (n) => `r${n}.avro`, manifestListPath: 'l99.avro', read: store.read, timestampMs: 99, ...over,
  });
  return { store, upload, head: parent!, nextRowId, base };
}

async function entriesOf(store: ReturnType<typeof memoryStore>, list: string) {
  const manifests = readManifestList(await store.read(list)).manifests;
  const all = await Promise.all(manifests.map(async (m) => readManifest(await store.read(m.manifest_path), m).entries));
  return { manifests, entries: all.flat() };
}

describe.each([1, 2, 3] as FormatVersion[])('replace v%i', (v) => {
  test('compaction: four small files out, one in, in one merged manifest; rows and totals kept', async () => {
    const { store, upload, base, nextRowId } = await fiveAppends(v);
    const compacted = dataFile('s3://b/t/data/c.parquet', 10n);
    const r = await buildReplace(base({
      remove: new Set([1, 2, 3, 4].map((i) => `s3://b/t/data/f${i}.parquet`)), add: [{ specId: 0, file: compacted }],
    }));
    upload(r);
    expect(r.snapshot).toMatchObject({ 'snapshot-id': 99n, 'parent-snapshot-id': 5n, 'manifest-list': 'l99.avro' });
    expect(r.snapshot['sequence-number']).toBe(v >= 2 ? 6n : undefined);
    expect(r.snapshot.summary).toMatchObject({
      operation: 'replace', 'added-data-files': '1', 'deleted-data-files': '4', 'added-records': '10', 'deleted-records': '10',
      'total-records': '15', 'total-data-files': '2', 'manifests-created': '1', 'manifests-replaced': '4', 'manifests-kept': '1',
    });
    expect(r.manifests).toEqual({ before: 5, after: 2, rewritten: 4, written: 1 });
    const { manifests, entries } = await entriesOf(store, 'l99.avro');
    expect(manifests.map((m) => m.manifest_path)).toEqual(['m5.avro', 'r0.avro']);
    const byPath = new Map(entries.map((e) => [e.data_file.file_path, e]));
    expect(byPath.get('s3://b/t/data/c.parquet')).toMatchObject({ status: EntryStatus.ADDED, snapshot_id: 99n, sequence_number: v >= 2 ? 6n : 0n });
    for (const i of [1, 2, 3, 4]) {
      expect(byPath.get(`s3://b/t/data/f${i}.parquet`)).toMatchObject({ status: EntryStatus.DELETED, snapshot_id: 99n, sequence_number: v >= 2 ? BigInt(i) : 0n });
    }
    expect(byPath.get('s3://b/t/data/f5.parquet')).toMatchObject({ status: EntryStatus.ADDED, snapshot_id: 5n });
    expect(await countRows({ ...r.snapshot, summary: undefined }, store.read)).toMatchObject({ rows: 15, data_files: 2 });
    if (v === 3) {
      expect(r.snapshot['first-row-id']).toBe(nextRowId);
      expect(r.snapshot['added-rows']).toBe(10n);
    }
  });

  test('a manifest merge keeps every live entry as EXISTING with its snapshot id, sequence number and row id', async () => {
    const { store, upload, base } = await fiveAppends(v);
    const before = await entriesOf(store, 'l5.avro');
    const r = await buildReplace(base({ merge: new Set(['m1.avro', 'm2.avro', 'm3.avro', 'm4.avro', 'm5.avro']) }));
    upload(r);
    expect(r.manifests).toEqual({ before: 5, after: 1, rewritten: 5, written: 1 });
    expect(r.snapshot.summary).toMatchObject({ operation: 'replace', 'total-records': '15', 'total-data-files': '5', 'manifests-created': '1', 'manifests-replaced': '5' });
    expect(r.snapshot.summary['added-data-files']).toBeUndefined();
    const after = await entriesOf(store, 'l99.avro');
    const key = (e: (typeof before.entries)[number]) => [e.data_file.file_path, e.snapshot_id, e.sequence_number, e.data_file.first_row_id];
    expect(after.entries.map(key).sort()).toEqual(before.entries.map(key).sort());
    expect(after.entries.every((e) => e.status === EntryStatus.EXISTING)).toBe(true);
  });

  test('a file no longer live, or a manifest no longer listed, makes the replace stale', async () => {
    const { base } = await fiveAppends(v);
    await expect(buildReplace(base({ remove: new Set(['s3://b/t/data/gone.parquet']) }))).rejects.toBeInstanceOf(StaleReplace);
    await expect(buildReplace(base({ merge: new Set(['gone.avro']) }))).rejects.toBeInstanceOf(StaleReplace);
  });
});

test('a rewrite drops earlier DELETED entries and splits near the target size', async () => {
  const { store, upload, base } = await fiveAppends(2);
  const first = await buildReplace(base({ remove: new Set(['s3://b/t/data/f1.parquet']), add: [{ specId: 0, file: dataFile('s3://b/t/data/c1.parquet', 1n) }] }));
  upload(first);
  const second = await buildReplace(base({
    parent: first.snapshot, lastSequenceNumber: 6n, snapshotId: 100n, manifestListPath: 'l100.avro', manifestPath: (n) => `s${n}.avro`,
    merge: new Set(readManifestList(await store.read('l99.avro')).manifests.map((m) => m.manifest_path)), targetManifestBytes: 1,
  }));
  upload(second);
  const { manifests, entries } = await entriesOf(store, 'l100.avro');
  expect(entries.map((e) => e.data_file.file_path).sort()).toEqual(['c1', 'f2', 'f3', 'f4', 'f5'].map((n) => `s3://b/t/data/${n}.parquet`));
  expect(manifests).toHaveLength(5); // a 1-byte target: one entry per manifest
});
