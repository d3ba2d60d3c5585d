import type { FormatVersion, PartitionSpec } from '../metadata/model.js';
import { readAvroContainer, readAvroHeader } from './avro.js';
import { EntryStatus, readManifest, writeManifest, type ManifestEntry } from './manifest.js';
import { BIG_SNAPSHOT_ID, byCategoryAndDay, dataFile, schema, unpartitioned } from './test-fixtures.js';
import { fromBinary } from './values.js';

/** Every id attribute anywhere in a raw Avro schema. */
function idsIn(node: unknown, out = new Set<number>()): Set<number> {
  if (Array.isArray(node)) node.forEach((n) => idsIn(n, out));
  else if (node && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (['field-id', 'element-id', 'key-id', 'value-id'].includes(k)) out.add(v as number);
      else idsIn(v, out);
    }
  }
  return out;
}

const partition = { category: 'books', ts_day: 19_700, 'id-bucket': 3, amount: 12_345n };

function entries(v: FormatVersion): ManifestEntry[] {
  return [
    { status: EntryStatus.ADDED, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: dataFile('s3://b/t/data/a.parquet', 10n, partition) },
    {
      status: EntryStatus.EXISTING,
      snapshot_id: BIG_SNAPSHOT_ID - 1n,
      sequence_number: v === 1 ? null : 3n,
      file_sequence_number: v === 1 ? null : 3n,
      data_file: { ...dataFile('s3://b/t/data/b.parquet', 20n, { ...partition, category: null }), first_row_id: v === 3 ? 500n : null },
    },
  ];
}

describe.each([1, 2, 3] as FormatVersion[])('manifest v%i', (v) => {
  const written = writeManifest({
    formatVersion: v, schema, spec: byCategoryAndDay, snapshotId: BIG_SNAPSHOT_ID, path: 's3://b/t/metadata/m0.avro', entries: entries(v),
  });

  test('round trips entries with exact 64-bit ids', () => {
    const read = readManifest(written.bytes);
    expect(read.formatVersion).toBe(v);
    expect(read.content).toBe('data');
    expect(read.spec).toEqual(byCategoryAndDay);
    expect(read.schema).toEqual(schema);
    const [a, b] = read.entries;
    expect(a.status).toBe(EntryStatus.ADDED);
    expect(a.snapshot_id).toBe(BIG_SNAPSHOT_ID); // filled in from the writer's snapshot id
    expect(a.sequence_number).toBeNull();
    expect(a.data_file.partition).toEqual(partition);
    expect(a.data_file.record_count).toBe(10n);
    expect(a.data_file.lower_bounds).toEqual(new Map([[1, new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0])]]));
    expect(a.data_file.value_counts).toEqual(new Map([[1, 10n], [2, 10n]]));
    expect(a.data_file.split_offsets).toEqual([4n]);
    expect(a.data_file.sort_order_id).toBe(0);
    expect(b.snapshot_id).toBe(BIG_SNAPSHOT_ID - 1n);
    expect(b.sequence_number).toBe(v === 1 ? null : 3n);
    expect(b.data_file.partition.category).toBeNull();
    expect(b.data_file.first_row_id).toBe(v === 3 ? 500n : null);
  });

  test('writes every spec field id and the required file metadata', () => {
    const header = readAvroHeader(written.bytes);
    const ids = idsIn(header.schema);
    const common = [0, 1, 2, 100, 101, 102, 103, 104, 108, 109, 110, 137, 125, 128, 131, 132, 133, 140,
      117, 118, 119, 120, 121, 122, 138, 139, 126, 127, 129, 130, 1000, 1001, 1002, 1003];
    for (const id of common) expect(ids).toContain(id);
    const v2 = [3, 4, 134, 135, 136, 143];
    const v3 = [142, 144, 145];
    for (const id of v2) expect(ids.has(id)).toBe(v >= 2);
    for (const id of v3) expect(ids.has(id)).toBe(v >= 3);
    expect(ids.has(105)).toBe(v === 1); // block_size_in_bytes: v1 only
    expect(header.metadata['partition-spec']).toBe(JSON.stringify(byCategoryAndDay.fields));
    expect(header.metadata['partition-spec-id']).toBe('1');
    expect(header.metadata['format-version']).toBe(String(v));
    expect(JSON.parse(header.metadata.schema)).toEqual(schema);
    expect(header.metadata.content).toBe(v >= 2 ? 'data' : undefined);
    expect(header.codec).toBe('deflate');
    // partition names that are not Avro names are escaped, the id still identifies them
    const r2 = header.schema.fields.find((f: any) => f.name === 'data_file').type;
    const r102 = r2.fields.find((f: any) => f.name === 'partition').type;
    expect(r102.fields.map((f: any) => f.name)).toEqual(['category', 'ts_day', 'id_x2Dbucket', 'amount']);
    expect(r102.fields[1].type).toEqual(['null', { type: 'int', logicalType: 'date' }]);
    expect(r102.fields[3].type[1]).toMatchObject({ type: 'fixed', size: 6, logicalType: 'decimal', precision: 12, scale: 2 });
  });

  test('summarises counts and partitions for the manifest list', () => {
    const m = written.manifestFile;
    expect(m).toMatchObject({
      manifest_path: 's3://b/t/metadata/m0.avro', manifest_length: BigInt(written.bytes.length), partition_spec_id: 1,
      content: 0, sequence_number: null, added_snapshot_id: BIG_SNAPSHOT_ID,
      added_files_count: 1, existing_files_count: 1, deleted_files_count: 0,
      added_rows_count: 10n, existing_rows_count: 20n, deleted_rows_count: 0n,
    });
    expect(m.min_sequence_number).toBe(v === 1 ? null : 3n);
    const [category, day] = m.partitions!;
    expect(category.contains_null).toBe(true);
    expect(fromBinary('string', category.lower_bound!)).toBe('books');
    expect(fromBinary('date', day.upper_bound!)).toBe(19_700);
  });

  test('inherits snapshot id, sequence numbers and first_row_id from the manifest list entry', () => {
    const inherit = { ...written.manifestFile, sequence_number: v === 1 ? 0n : 7n, min_sequence_number: 3n, first_row_id: v === 3 ? 1000n : null };
    const [a, b] = readManifest(written.bytes, inherit).entries;
    expect(a.sequence_number).toBe(v === 1 ? 0n : 7n);
    expect(a.file_sequence_number).toBe(v === 1 ? 0n : 7n);
    expect(b.sequence_number).toBe(v === 1 ? 0n : 3n); // existing entries keep their own
    expect(a.data_file.first_row_id).toBe(v === 3 ? 1000n : null);
    expect(b.data_file.first_row_id).toBe(v === 3 ? 500n : null);
  });
});

describe('manifest details', () => {
  test('unpartitioned specs write an empty partition struct', () => {
    const { bytes } = writeManifest({
      formatVersion: 2, schema, spec: unpartitioned, snapshotId: 1n, path: 'm.avro',
      entries: [{ status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: dataFile('a.parquet', 1n) }],
    });
    const header = readAvroHeader(bytes);
    const r2 = header.schema.fields[4].type;
    expect(r2.fields[3]).toEqual({ name: 'partition', type: { type: 'record', name: 'r102', fields: [] }, 'field-id': 102 });
    expect(readManifest(bytes).entries[0].data_file.partition).toEqual({});
  });

  test('delete manifests carry position, equality and deletion-vector files (v3)', () => {
    const base = dataFile('x', 0n);
    const { bytes, manifestFile } = writeManifest({
      formatVersion: 3, schema, spec: unpartitioned, snapshotId: 5n, path: 'd.avro', content: 'deletes',
      entries: [
        { status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null,
          data_file: { ...base, content: 2, file_path: 'eq.parquet', record_count: 2n, equality_ids: [1, 2] } },
        { status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null,
          data_file: { ...base, content: 1, file_path: 'dv.puffin', file_format: 'puffin', record_count: 3n,
            referenced_data_file: 'a.parquet', content_offset: 4n, content_size_in_bytes: 40n, sort_order_id: null } },
      ],
    });
    expect(manifestFile.content).toBe(1);
    const read = readManifest(bytes, { ...manifestFile, sequence_number: 9n, first_row_id: null });
    expect(read.content).toBe('deletes');
    expect(read.entries[0].data_file).toMatchObject({ content: 2, equality_ids: [1, 2], first_row_id: null });
    expect(read.entries[1].data_file).toMatchObject({
      content: 1, file_format: 'puffin', referenced_data_file: 'a.parquet', content_offset: 4n, content_size_in_bytes: 40n,
    });
    expect(read.entries[1].sequence_number).toBe(9n);
  });

  test('v2 existing entries without sequence numbers are rejected', () => {
    expect(() => writeManifest({
      formatVersion: 2, schema, spec: unpartitioned, snapshotId: 1n, path: 'm.avro',
      entries: [{ status: 0, snapshot_id: 1n, sequence_number: null, file_sequence_number: null, data_file: dataFile('a', 1n) }],
    })).toThrow(/explicit sequence numbers/);
  });

  test('null codec files are readable by the generic container reader', () => {
    const { bytes } = writeManifest({
      formatVersion: 2, schema, spec: unpartitioned, snapshotId: 1n, path: 'm.avro', codec: 'null',
      entries: [{ status: 1, snapshot_id: null, sequence_number: null, file_sequence_number: null, data_file: dataFile('a', 1n) }],
    });
    const c = readAvroContainer(bytes);
    expect(c.codec).toBe('null');
    expect(c.records).toHaveLength(1);
  });
});

test('a v1 spec without ids is written with the ids the reference assigns (spec 0, fields from 1000)', () => {
  const legacy: PartitionSpec = { fields: byCategoryAndDay.fields.map(({ 'field-id': _id, ...f }) => f) };
  const written = writeManifest({ formatVersion: 1, schema, spec: legacy, snapshotId: BIG_SNAPSHOT_ID, path: 'm.avro', entries: entries(1) });
  expect(written.manifestFile.partition_spec_id).toBe(0);
  const read = readManifest(written.bytes);
  expect(read.spec).toEqual({ ...byCategoryAndDay, 'spec-id': 0 });
  expect(read.entries[0].data_file.partition).toEqual(partition);
});
