import {
  currentSchema,
  currentSnapshot,
  currentSnapshotId,
  defaultSpec,
  metadataFileLocation,
  metadataFileName,
  newSnapshotId,
  nextMetadataVersion,
  parseMetadataVersion,
  refsOf,
  schemaById,
  snapshotById,
  sortOrdersOf,
} from './helpers';
import { parseTableMetadata } from './model';
import { V1_LEGACY, V2_EMPTY, V2_JAVA } from './testdata/samples';

describe('helpers', () => {
  const v2 = parseTableMetadata(V2_JAVA);

  it('finds snapshots and schemas', () => {
    expect(currentSnapshot(v2)?.['snapshot-id']).toBe(9223372036854775807n);
    expect(snapshotById(v2, 4611686018427387905n)?.['sequence-number']).toBe(1n);
    expect(snapshotById(v2, 4611686018427387904n)).toBeUndefined();
    expect(schemaById(v2, 0)?.fields).toHaveLength(2);
    expect(currentSchema(v2)['schema-id']).toBe(1);
  });

  it('treats Java -1 and a missing current snapshot as none', () => {
    const empty = parseTableMetadata(V2_EMPTY);
    expect(currentSnapshotId(empty)).toBeNull();
    expect(currentSnapshot(empty)).toBeUndefined();
    expect(refsOf(empty)).toEqual({});
  });

  it('reads legacy v1 fields', () => {
    const v1 = parseTableMetadata(V1_LEGACY);
    expect(currentSchema(v1).fields.map((f) => f.name)).toEqual(['a', 'b']);
    expect(defaultSpec(v1)).toEqual({ 'spec-id': 0, fields: [{ name: 'a', transform: 'identity', 'source-id': 1, 'field-id': 1000 }] });
    expect(sortOrdersOf(v1)).toEqual([{ 'order-id': 0, fields: [] }]);
  });

  it('names metadata files and finds the next version', () => {
    const uuid = '9c12d441-03fe-4693-9a96-a0705ddf69c1';
    expect(metadataFileName(7, uuid)).toBe(`00007-${uuid}.metadata.json`);
    expect(metadataFileName(123456, uuid)).toBe(`123456-${uuid}.metadata.json`);
    expect(() => metadataFileName(-1, uuid)).toThrow(RangeError);
    expect(parseMetadataVersion(`s3://b/t/metadata/00041-${uuid}.metadata.json`)).toBe(41);
    expect(parseMetadataVersion(`s3://b/t/metadata/00041-${uuid}.gz.metadata.json`)).toBe(41);
    expect(parseMetadataVersion('s3://b/t/metadata/v3.metadata.json')).toBe(3);
    expect(parseMetadataVersion('s3://b/t/metadata/whatever.json')).toBe(-1);
    expect(nextMetadataVersion(`s3://b/t/metadata/00041-${uuid}.metadata.json`)).toBe(42);
    expect(nextMetadataVersion(null)).toBe(0);
    expect(nextMetadataVersion('s3://b/t/metadata/odd.json')).toBe(0);
  });

  it('places metadata files under the table or write.metadata.path', () => {
    expect(metadataFileLocation(v2, 'f.json')).toBe('s3://bucket/warehouse/db/orders/metadata/f.json');
    const custom = { ...v2, properties: { 'write.metadata.path': 's3://other/meta/' } };
    expect(metadataFileLocation(custom, 'f.json')).toBe('s3://other/meta/f.json');
  });

  it('makes positive snapshot ids that every JSON number reader keeps exact', () => {
    const ids = new Set<bigint>();
    for (let i = 0; i < 200; i++) {
      const id = newSnapshotId();
      expect(id > 0n && id <= BigInt(Number.MAX_SAFE_INTEGER)).toBe(true);
      expect(BigInt(Number(id))).toBe(id);
      ids.add(id);
    }
    expect(ids.size).toBe(200);
  });
});
