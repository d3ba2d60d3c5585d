import { EntryStatus, FileContent, writeManifest, type DataFile } from '../files/manifest';
import { writeManifestList, type ManifestFile } from '../files/manifest-list';
import { dataFile, memoryStore, schema, unpartitioned } from '../files/test-fixtures';
import type { TableMetadata } from '../metadata/model';
import { applyUpdates } from '../metadata/updates';
import { planSnapshotExpiry } from './expiry';
import { collectSnapshotFiles, unreachableFiles, type SnapshotFiles } from './reachability';
import { DAY, DEFAULTS, LOCATION, NOW, tableWith } from './test-fixtures';

const p = (name: string) => `${LOCATION}/${name}`;
const a = dataFile(p('data/a.parquet'), 10n);
const b = dataFile(p('data/b.parquet'), 20n);
const c = dataFile(p('data/c.parquet'), 30n);
const pd: DataFile = { ...dataFile(p('data/pd.parquet'), 1n), content: FileContent.POSITION_DELETES };

/**
 * S1 adds a; S2 adds b and a position delete pd; S3 deletes a and pd (rewriting their
 * manifests); S4 adds c. Every manifest and list is written by the package's writers.
 */
function history() {
  const store = memoryStore();
  const reads: string[] = [];
  const read = (path: string) => {
    reads.push(path);
    return store.read(path);
  };
  const assigned = new Map<string, ManifestFile>();
  const manifest = (name: string, snapshotId: bigint, entries: [number, DataFile][], content: 'data' | 'deletes' = 'data') => {
    const { bytes, manifestFile } = writeManifest({
      formatVersion: 2, schema, spec: unpartitioned, content, snapshotId, path: p(`metadata/${name}`),
      entries: entries.map(([status, data_file]) => {
        const seq = status === EntryStatus.ADDED ? null : 1n;
        return { status: status as EntryStatus, snapshot_id: snapshotId, sequence_number: seq, file_sequence_number: seq, data_file };
      }),
    });
    store.put(manifestFile.manifest_path, bytes);
    return manifestFile;
  };
  const list = (snapshotId: bigint, manifests: ManifestFile[]) => {
    const written = writeManifestList({
      formatVersion: 2, snapshotId, parentSnapshotId: snapshotId - 1n, sequenceNumber: snapshotId,
      manifests: manifests.map((m) => assigned.get(m.manifest_path) ?? m),
    });
    for (const m of written.manifests) assigned.set(m.manifest_path, m);
    store.put(p(`metadata/snap-${snapshotId}.avro`), written.bytes);
  };
  const m1 = manifest('m1.avro', 1n, [[EntryStatus.ADDED, a]]);
  list(1n, [m1]);
  const m2 = manifest('m2.avro', 2n, [[EntryStatus.ADDED, b]]);
  const md = manifest('md.avro', 2n, [[EntryStatus.ADDED, pd]], 'deletes');
  list(2n, [m2, md, m1]);
  const m3 = manifest('m3.avro', 3n, [[EntryStatus.DELETED, a]]);
  const md3 = manifest('md3.avro', 3n, [[EntryStatus.DELETED, pd]], 'deletes');
  list(3n, [m3, md3, m2]);
  const m4 = manifest('m4.avro', 4n, [[EntryStatus.ADDED, c]]);
  list(4n, [m4, m3, md3, m2]);
  return { store, read, reads };
}

function tableOf(refs: Parameters<typeof tableWith>[1] = { main: { 'snapshot-id': 4n } }): TableMetadata {
  const ts = [NOW - 10 * DAY, NOW - 9 * DAY, NOW - DAY, NOW];
  const snaps = ts.map((t, i) => ({ id: BigInt(i + 1), ts: t, manifestList: p(`metadata/snap-${i + 1}.avro`) }));
  return applyUpdates(tableWith(snaps, refs), [
    { action: 'set-statistics', statistics: { 'snapshot-id': 1n, 'statistics-path': p('metadata/stats-1.puffin'), 'file-size-in-bytes': 100n, 'file-footer-size-in-bytes': 10n, 'blob-metadata': [] } },
    { action: 'set-partition-statistics', 'partition-statistics': { 'snapshot-id': 4n, 'statistics-path': p('metadata/pstats-4.parquet'), 'file-size-in-bytes': 50n } },
  ], { nowMs: NOW });
}

async function expire(meta: TableMetadata, read: (path: string) => Promise<Uint8Array>) {
  const plan = planSnapshotExpiry(meta, { nowMs: NOW, defaults: DEFAULTS });
  const collected = await collectSnapshotFiles(meta.snapshots!, read, { metadata: meta });
  const gone = new Set(plan.expiredSnapshotIds);
  const split = (keep: boolean) => collected.filter((s: SnapshotFiles) => gone.has(s.snapshotId) !== keep);
  return { plan, collected, unreachable: unreachableFiles(split(false), split(true)) };
}

const names = (files: { path: string }[]) => files.map((f) => f.path.slice(f.path.lastIndexOf('/') + 1)).sort();

describe('collectSnapshotFiles', () => {
  test('lists each snapshot’s files, live entries only, reading each manifest once', async () => {
    const { read, reads } = history();
    const collected = await collectSnapshotFiles(tableOf().snapshots!, read, { metadata: tableOf() });
    const s3 = collected.find((s) => s.snapshotId === 3n)!;
    expect(names(s3.manifests)).toEqual(['m2.avro', 'm3.avro', 'md3.avro']);
    expect(s3.manifests.flatMap((m) => m.dataFiles.map((f) => f.path))).toEqual([b.file_path]); // a is DELETED there
    expect(s3.manifests.flatMap((m) => m.deleteFiles)).toEqual([]);
    const s2 = collected.find((s) => s.snapshotId === 2n)!;
    expect(s2.manifests.find((m) => m.content === 'deletes')!.deleteFiles).toEqual([{ path: pd.file_path, bytes: Number(pd.file_size_in_bytes) }]);
    expect(names(collected[0].statisticsFiles)).toEqual(['stats-1.puffin']);
    expect(names(collected[3].statisticsFiles)).toEqual(['pstats-4.parquet']);
    expect(reads.length).toBe(new Set(reads).size);
    expect(reads).toHaveLength(4 + 6);
  });

  test('a v1 snapshot with inline manifests', async () => {
    const { read } = history();
    const [s] = await collectSnapshotFiles([{ 'snapshot-id': 9n, 'timestamp-ms': 0n, manifests: [p('metadata/m1.avro')] }], read);
    expect(s.manifestList).toBeNull();
    expect(s.manifests[0].dataFiles.map((f) => f.path)).toEqual([a.file_path]);
  });
});

describe('unreachableFiles', () => {
  test('files only expired snapshots reach; a file still live in the current snapshot stays', async () => {
    const { read } = history();
    const { plan, unreachable } = await expire(tableOf(), read);
    expect(plan.expiredSnapshotIds).toEqual([2n, 1n]);
    expect(names(unreachable.manifestLists)).toEqual(['snap-1.avro', 'snap-2.avro']);
    expect(names(unreachable.manifests)).toEqual(['m1.avro', 'md.avro']);
    expect(names(unreachable.dataFiles)).toEqual(['a.parquet']); // b, added by expired S2, is live in S4
    expect(names(unreachable.deleteFiles)).toEqual(['pd.parquet']);
    expect(names(unreachable.statisticsFiles)).toEqual(['stats-1.puffin']);
    expect(unreachable.paths).toHaveLength(7);
    expect(unreachable.paths.slice(0, 2)).toEqual([a.file_path, pd.file_path]); // contents first
    expect(unreachable.bytes).toBe(
      Number(a.file_size_in_bytes) + Number(pd.file_size_in_bytes) + 100 +
        [...unreachable.manifests, ...unreachable.manifestLists].reduce((n, f) => n + f.bytes, 0),
    );
  });

  test('a tagged old snapshot keeps its files', async () => {
    const { read } = history();
    const { plan, unreachable } = await expire(tableOf({ main: { 'snapshot-id': 4n }, v1: { 'snapshot-id': 1n, type: 'tag' } }), read);
    expect(plan.expiredSnapshotIds).toEqual([2n]);
    expect(names(unreachable.manifestLists)).toEqual(['snap-2.avro']);
    expect(names(unreachable.manifests)).toEqual(['md.avro']);
    expect(unreachable.dataFiles).toEqual([]);
    expect(names(unreachable.deleteFiles)).toEqual(['pd.parquet']);
    expect(unreachable.statisticsFiles).toEqual([]);
  });

  test('never a path any retained snapshot reaches', async () => {
    const { read } = history();
    const collected = await collectSnapshotFiles(tableOf().snapshots!, read, { metadata: tableOf() });
    for (let i = 0; i < collected.length; i++) {
      const expired = collected.filter((_, j) => j !== i);
      const retained = [collected[i]];
      const kept = new Set(retained.flatMap((s) => [s.manifestList!.path, ...s.manifests.flatMap((m) => [m.path, ...m.dataFiles.map((f) => f.path)])]));
      expect(unreachableFiles(expired, retained).paths.filter((x) => kept.has(x))).toEqual([]);
    }
  });
});
