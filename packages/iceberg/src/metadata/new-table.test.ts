import { InvalidUpdateError } from './errors';
import { parseJson } from './json';
import type { Schema } from './model';
import { serializeTableMetadata } from './model';
import { newTableMetadata } from './new-table';

// A client schema with its own (odd) ids, as CreateTableRequest may carry.
const clientSchema: Schema = {
  type: 'struct',
  'schema-id': 7,
  'identifier-field-ids': [10],
  fields: [
    { id: 10, name: 'id', required: true, type: 'long' },
    {
      id: 20, name: 'loc', required: false,
      type: { type: 'struct', fields: [{ id: 21, name: 'lat', required: true, type: 'double' }, { id: 22, name: 'lon', required: true, type: 'double' }] },
    },
    { id: 30, name: 'tags', required: false, type: { type: 'list', 'element-id': 31, element: 'string', 'element-required': false } },
    {
      id: 40, name: 'props', required: false,
      type: { type: 'map', 'key-id': 41, key: 'string', 'value-id': 42, value: { type: 'struct', fields: [{ id: 43, name: 'v', required: false, type: 'int' }] }, 'value-required': true },
    },
    { id: 50, name: 'ts', required: true, type: 'timestamptz' },
  ],
};

describe('newTableMetadata', () => {
  const meta = newTableMetadata({
    location: 's3://bucket/wh/ns/t/',
    schema: clientSchema,
    partitionSpec: { 'spec-id': 3, fields: [{ 'source-id': 50, 'field-id': 77, name: 'ts_day', transform: 'day' }, { 'source-id': 10, name: 'id_bucket', transform: 'bucket[8]' }] },
    sortOrder: { 'order-id': 9, fields: [{ 'source-id': 50, transform: 'identity', direction: 'desc', 'null-order': 'nulls-last' }] },
    properties: { owner: 'me', 'format-version': '1' },
    tableUuid: '11111111-2222-4333-8444-555555555555',
    nowMs: 1717400000000,
  });

  it('re-assigns column ids the way Java does (struct fields first, then nested types)', () => {
    const schema = meta.schemas![0];
    expect(schema['schema-id']).toBe(0);
    expect(schema.fields.map((f) => f.id)).toEqual([1, 2, 3, 4, 5]);
    expect(schema.fields[1].type).toMatchObject({ fields: [{ id: 6 }, { id: 7 }] });
    expect(schema.fields[2].type).toMatchObject({ 'element-id': 8 });
    expect(schema.fields[3].type).toMatchObject({ 'key-id': 9, 'value-id': 10, value: { fields: [{ id: 11 }] } });
    expect(schema['identifier-field-ids']).toEqual([1]);
    expect(meta['last-column-id']).toBe(11);
  });

  it('re-points the spec and sort order and gives fresh spec field ids', () => {
    expect(meta['partition-specs']).toEqual([
      { 'spec-id': 0, fields: [{ 'source-id': 5, 'field-id': 1000, name: 'ts_day', transform: 'day' }, { 'source-id': 1, 'field-id': 1001, name: 'id_bucket', transform: 'bucket[8]' }] },
    ]);
    expect(meta['last-partition-id']).toBe(1001);
    expect(meta['sort-orders']).toEqual([{ 'order-id': 1, fields: [{ transform: 'identity', 'source-id': 5, direction: 'desc', 'null-order': 'nulls-last' }] }]);
    expect(meta['default-sort-order-id']).toBe(1);
  });

  it('honours the format-version property without storing it; v1 keeps the legacy fields', () => {
    expect(meta['format-version']).toBe(1);
    expect(meta.properties).toEqual({ owner: 'me' });
    expect(meta.location).toBe('s3://bucket/wh/ns/t');
    expect(meta['table-uuid']).toBe('11111111-2222-4333-8444-555555555555');
    expect(meta['last-updated-ms']).toBe(1717400000000n);
    expect(meta.schema).toEqual(meta.schemas![0]);
    expect(meta['partition-spec']).toEqual(meta['partition-specs']![0].fields);
    expect(meta['last-sequence-number']).toBeUndefined();
    expect(meta['current-snapshot-id']).toBe(-1n);
  });

  it('defaults to v2, unpartitioned, unsorted', () => {
    const v2 = newTableMetadata({ location: 's3://b/t', schema: clientSchema });
    expect(v2['format-version']).toBe(2);
    expect(v2['partition-specs']).toEqual([{ 'spec-id': 0, fields: [] }]);
    expect(v2['last-partition-id']).toBe(999);
    expect(v2['sort-orders']).toEqual([{ 'order-id': 0, fields: [] }]);
    expect(v2['last-sequence-number']).toBe(0n);
    expect(v2['next-row-id']).toBeUndefined();
    expect(v2['table-uuid']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('creates v3 tables with next-row-id 0 and no current snapshot, and they serialise', () => {
    const v3 = newTableMetadata({ location: 's3://b/t', schema: clientSchema, formatVersion: 3 });
    expect(v3['next-row-id']).toBe(0n);
    expect(v3['current-snapshot-id'] ?? null).toBeNull();
    const json = parseJson(serializeTableMetadata(v3)) as Record<string, unknown>;
    expect(json['next-row-id']).toBe(0);
    expect('current-snapshot-id' in json).toBe(false);
    expect(json.refs).toEqual({});
  });

  it.each<[string, () => unknown, RegExp]>([
    ['v3 types in v2', () => newTableMetadata({ location: 's3://b/t', schema: { type: 'struct', fields: [{ id: 1, name: 'v', required: false, type: 'variant' }] } }), /variant is not supported until v3/],
    ['duplicate ids', () => newTableMetadata({ location: 's3://b/t', schema: { type: 'struct', fields: [{ id: 1, name: 'a', required: false, type: 'int' }, { id: 1, name: 'b', required: false, type: 'int' }] } }), /duplicate field id 1/],
    ['unknown partition source', () => newTableMetadata({ location: 's3://b/t', schema: clientSchema, partitionSpec: { fields: [{ 'source-id': 99, name: 'x', transform: 'identity' }] } }), /source column 99/],
    ['transform that does not fit', () => newTableMetadata({ location: 's3://b/t', schema: clientSchema, partitionSpec: { fields: [{ 'source-id': 10, name: 'x', transform: 'day' }] } }), /invalid source type long for transform day/],
    ['partition name shadowing a column', () => newTableMetadata({ location: 's3://b/t', schema: clientSchema, partitionSpec: { fields: [{ 'source-id': 50, name: 'id', transform: 'day' }] } }), /conflicts with schema column id/],
    ['sort on a list', () => newTableMetadata({ location: 's3://b/t', schema: clientSchema, sortOrder: { fields: [{ 'source-id': 30, transform: 'identity', direction: 'asc', 'null-order': 'nulls-first' }] } }), /not a primitive type/],
    ['empty location', () => newTableMetadata({ location: '/', schema: clientSchema }), /location/],
    ['bad format-version property', () => newTableMetadata({ location: 's3://b/t', schema: clientSchema, properties: { 'format-version': '4' } }), /Unsupported format-version/],
    ['optional identifier field', () => newTableMetadata({ location: 's3://b/t', schema: { ...clientSchema, 'identifier-field-ids': [20] } }), /must be a primitive type.*must be required/],
  ])('refuses %s', (_name, create, message) => {
    expect(create).toThrow(InvalidUpdateError);
    expect(create).toThrow(message);
  });
});
