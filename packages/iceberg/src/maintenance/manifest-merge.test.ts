import { EntryStatus, writeManifest } from '../files/manifest';
import { ManifestContent, readManifestList, writeManifestList, type ManifestFile } from '../files/manifest-list';
import { dataFile, schema, unpartitioned } from '../files/test-fixtures';
import { planManifestMerge } from './manifest-merge';

const MB = 1024 * 1024;

function manifests(count: number, bytes: number, over: Partial<ManifestFile> = {}, from = 0): ManifestFile[] {
  return Array.from({ length: count }, (_, i) => ({
    manifest_path: `s3://b/t/metadata/m${from + i}.avro`, manifest_length: BigInt(bytes), partition_spec_id: 0,
    content: ManifestContent.DATA, sequence_number: 1n, min_sequence_number: 1n, added_snapshot_id: 1n,
    added_files_count: 1, existing_files_count: 0, deleted_files_count: 0, added_rows_count: 1n, existing_rows_count: 0n,
    deleted_rows_count: 0n, partitions: [], key_metadata: null, first_row_id: null, ...over,
  }));
}

describe('planManifestMerge', () => {
  test('below min-count-to-merge nothing is merged', () => {
    const plan = planManifestMerge(manifests(99, MB), { targetBytes: 8 * MB, minCountToMerge: 100 });
    expect(plan).toEqual({ groups: [], smallManifests: 99, deleteManifests: 0 });
  });

  test('small data manifests merge toward the target, in list order', () => {
    const list = manifests(100, MB);
    const plan = planManifestMerge(list, { targetBytes: 8 * MB, minCountToMerge: 100 });
    expect(plan.groups.map((g) => g.manifests.length)).toEqual([...Array(12).fill(8), 4]);
    expect(plan.groups[0].manifests).toEqual(list.slice(0, 8));
    expect(plan.groups[0]).toMatchObject({ specId: 0, content: 'data', inputBytes: 8 * MB, trigger: '100 manifests under 8 MB for spec 0' });
  });

  test('large manifests, delete manifests and each spec are kept apart', () => {
    const plan = planManifestMerge([
      ...manifests(3, 2 * MB),
      ...manifests(1, 9 * MB, {}, 10),
      ...manifests(3, MB, { content: ManifestContent.DELETES }, 20),
      ...manifests(2, MB, { partition_spec_id: 1 }, 30),
      ...manifests(1, MB, { partition_spec_id: 2 }, 40),
    ], { targetBytes: 8 * MB, minCountToMerge: 2 });
    expect(plan.groups.map((g) => [g.specId, g.manifests.map((m) => m.manifest_path.slice(-7))])).toEqual([
      [0, ['m0.avro', 'm1.avro', 'm2.avro']],
      [1, ['30.avro', '31.avro']],
    ]);
    expect(plan).toMatchObject({ smallManifests: 6, deleteManifests: 3 });
  });

  test('works on a manifest list written by the package', () => {
    const written = Array.from({ length: 5 }, (_, i) =>
      writeManifest({
        formatVersion: 2, schema, spec: unpartitioned, snapshotId: BigInt(i + 1), path: `s3://b/t/metadata/r${i}.avro`,
        entries: [{ status: EntryStatus.ADDED, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: dataFile(`s3://b/t/data/${i}.parquet`, 5n) }],
      }).manifestFile,
    );
    const { bytes } = writeManifestList({
      formatVersion: 2, snapshotId: 5n, parentSnapshotId: 4n, sequenceNumber: 5n,
      manifests: written.map((m, i) => ({ ...m, sequence_number: m.added_snapshot_id === 5n ? null : BigInt(i + 1) })),
    });
    const plan = planManifestMerge(readManifestList(bytes).manifests, { targetBytes: 8 * MB, minCountToMerge: 5 });
    expect(plan.groups).toHaveLength(1);
    expect(plan.groups[0].manifests.map((m) => m.manifest_path)).toEqual(written.map((m) => m.manifest_path));
    expect(plan.groups[0].inputBytes).toBe(written.reduce((n, m) => n + Number(m.manifest_length), 0));
  });
});
