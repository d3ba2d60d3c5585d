import { Readable } from 'node:stream';
import avro from 'avsc';
import { readAvroHeader } from './avro.js';
import { readManifestList, writeManifestList, type ManifestFile } from './manifest-list.js';
import { BIG_PARENT_ID, BIG_SNAPSHOT_ID } from './test-fixtures.js';
import type { FormatVersion } from '../metadata/model.js';

function manifest(path: string, over: Partial<ManifestFile> = {}): ManifestFile {
  return {
    manifest_path: path, manifest_length: 1234n, partition_spec_id: 0, content: 0,
    sequence_number: null, min_sequence_number: null, added_snapshot_id: BIG_SNAPSHOT_ID,
    added_files_count: 2, existing_files_count: 0, deleted_files_count: 0,
    added_rows_count: 100n, existing_rows_count: 25n, deleted_rows_count: 0n,
    partitions: [{ contains_null: false, contains_nan: false, lower_bound: new Uint8Array([1, 0, 0, 0]), upper_bound: new Uint8Array([2, 0, 0, 0]) }],
    key_metadata: null, first_row_id: null, ...over,
  };
}

const older = () => manifest('s3://b/t/metadata/old.avro', {
  added_snapshot_id: BIG_PARENT_ID, sequence_number: 4n, min_sequence_number: 2n, added_rows_count: 75n, existing_rows_count: 0n, first_row_id: 925n,
});

describe.each([1, 2, 3] as FormatVersion[])('manifest list v%i', (v) => {
  const written = writeManifestList({
    formatVersion: v, snapshotId: BIG_SNAPSHOT_ID, parentSnapshotId: BIG_PARENT_ID, sequenceNumber: 5n,
    firstRowId: v === 3 ? 1000n : undefined,
    manifests: [manifest('s3://b/t/metadata/new.avro'), older()],
  });

  test('round trips with exact ids and assigned sequence numbers', () => {
    const read = readManifestList(written.bytes);
    expect(read.formatVersion).toBe(v);
    const [a, b] = read.manifests;
    expect(a.added_snapshot_id).toBe(BIG_SNAPSHOT_ID);
    expect(b.added_snapshot_id).toBe(BIG_PARENT_ID);
    expect(a.sequence_number).toBe(v === 1 ? 0n : 5n); // v1 lists have no sequence numbers: read as 0
    expect(a.min_sequence_number).toBe(v === 1 ? 0n : 5n);
    expect(b.sequence_number).toBe(v === 1 ? 0n : 4n);
    expect(b.min_sequence_number).toBe(v === 1 ? 0n : 2n);
    expect(a.partitions).toEqual(manifest('x').partitions);
    expect(a).toMatchObject({ manifest_length: 1234n, added_files_count: 2, added_rows_count: 100n, existing_rows_count: 25n, content: 0 });
    // v3: existing manifests keep their first_row_id, new ones start at the snapshot's first-row-id
    expect(a.first_row_id).toBe(v === 3 ? 1000n : null);
    expect(b.first_row_id).toBe(v === 3 ? 925n : null);
    expect(written.addedRows).toBe(v === 3 ? 125n : 0n);
  });

  test('header metadata and field ids', () => {
    const header = readAvroHeader(written.bytes);
    expect(header.metadata['snapshot-id']).toBe(String(BIG_SNAPSHOT_ID));
    expect(header.metadata['parent-snapshot-id']).toBe(String(BIG_PARENT_ID));
    expect(header.metadata['format-version']).toBe(String(v));
    expect(header.metadata['sequence-number']).toBe(v >= 2 ? '5' : undefined);
    expect(header.metadata['first-row-id']).toBe(v === 3 ? '1000' : undefined);
    const ids = header.schema.fields.map((f: any) => f['field-id']);
    expect(ids).toEqual(expect.arrayContaining([500, 501, 502, 503, 504, 505, 506, 507, 512, 513, 514, 519]));
    expect(ids.includes(517) && ids.includes(515) && ids.includes(516)).toBe(v >= 2);
    expect(ids.includes(520)).toBe(v === 3);
    const partitions = header.schema.fields.find((f: any) => f['field-id'] === 507).type[1];
    expect(partitions['element-id']).toBe(508);
    expect(partitions.items.fields.map((f: any) => f['field-id'])).toEqual([509, 518, 510, 511]);
  });
});

test('v3 first_row_id assignment follows the spec example', () => {
  const { manifests, addedRows } = writeManifestList({
    formatVersion: 3, snapshotId: 1n, parentSnapshotId: null, sequenceNumber: 1n, firstRowId: 1000n,
    manifests: [
      manifest('added1', { added_snapshot_id: 1n, added_rows_count: 100n, existing_rows_count: 25n }),
      manifest('added2', { added_snapshot_id: 1n, added_rows_count: 0n, existing_rows_count: 100n }),
      manifest('deletes', { added_snapshot_id: 1n, content: 1, added_rows_count: 7n, existing_rows_count: 0n }),
      manifest('added3', { added_snapshot_id: 1n, added_rows_count: 125n, existing_rows_count: 25n }),
    ],
  });
  expect(manifests.map((m) => m.first_row_id)).toEqual([1000n, 1125n, null, 1225n]);
  expect(addedRows).toBe(375n);
});

test('rejects carried manifests with unassigned sequence numbers', () => {
  expect(() => writeManifestList({
    formatVersion: 2, snapshotId: 2n, parentSnapshotId: 1n, sequenceNumber: 2n,
    manifests: [manifest('m', { added_snapshot_id: 1n })],
  })).toThrow(/no sequence number/);
});

test('a standard Avro reader (avsc streams) decodes the container', async () => {
  const { bytes } = writeManifestList({
    formatVersion: 2, snapshotId: 1n, parentSnapshotId: null, sequenceNumber: 1n, manifests: [manifest('m', { added_snapshot_id: 1n })],
  });
  const records: any[] = [];
  const metadata = await new Promise<any>((resolve, reject) => {
    let meta: any;
    Readable.from([Buffer.from(bytes)])
      .pipe(new avro.streams.BlockDecoder({ parseHook: (s: any) => avro.Type.forSchema(s, { wrapUnions: false }) } as any))
      .on('metadata', (_type: unknown, _codec: unknown, header: any) => (meta = header.meta))
      .on('data', (r: any) => records.push(r))
      .on('end', () => resolve(meta))
      .on('error', reject);
  });
  expect(records[0].manifest_path).toBe('m');
  expect(metadata['parent-snapshot-id'].toString()).toBe('null');
});
