import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { writeParquetDataFile } from './parquet.js';
import type { Schema } from '../metadata/model.js';
import { fromBinary } from './values.js';

const schema: Schema = {
  type: 'struct',
  'schema-id': 3,
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'flag', required: false, type: 'boolean' },
    { id: 3, name: 'qty', required: false, type: 'int' },
    { id: 4, name: 'ratio', required: false, type: 'float' },
    { id: 5, name: 'score', required: false, type: 'double' },
    { id: 6, name: 'price', required: false, type: 'decimal(9,2)' },
    { id: 7, name: 'big', required: false, type: 'decimal(18,3)' },
    { id: 8, name: 'huge', required: false, type: 'decimal(30,4)' },
    { id: 9, name: 'day', required: false, type: 'date' },
    { id: 10, name: 'at', required: false, type: 'time' },
    { id: 11, name: 'local_ts', required: false, type: 'timestamp' },
    { id: 12, name: 'ts', required: false, type: 'timestamptz' },
    { id: 13, name: 'name', required: false, type: 'string' },
    { id: 14, name: 'uid', required: false, type: 'uuid' },
    { id: 15, name: 'blob', required: false, type: 'binary' },
    { id: 16, name: 'code', required: false, type: 'fixed[4]' },
    { id: 17, name: 'loc', required: false, type: { type: 'struct', fields: [
      { id: 18, name: 'lat', required: true, type: 'double' },
      { id: 19, name: 'lon', required: false, type: 'double' },
    ] } },
    { id: 20, name: 'tags', required: false, type: { type: 'list', 'element-id': 21, 'element-required': false, element: 'string' } },
    { id: 22, name: 'attrs', required: false, type: { type: 'map', 'key-id': 23, key: 'string', 'value-id': 24, 'value-required': false, value: 'long' } },
  ],
};

const rows = [
  {
    id: 9_007_199_254_740_993n, flag: true, qty: -7, ratio: 0.5, score: NaN, price: '123.45', big: '-1234567.891',
    huge: '12345678901234567890.1234', day: '2024-02-29', at: '13:14:15.123456', local_ts: '2024-02-29T13:14:15.123456',
    ts: '2024-02-29T13:14:15.123456Z', name: 'zebra', uid: 'f79c3e09-677c-4bbd-a479-3f349cb785e7',
    blob: new Uint8Array([1, 2, 3]), code: new Uint8Array([9, 8, 7, 6]), loc: { lat: 1.5, lon: -2.25 },
    tags: ['a', null, 'b'], attrs: { x: 1n },
  },
  {
    id: 2n, flag: null, qty: 42, ratio: -0, score: 1.25, price: null, big: '0.001', huge: null, day: new Date(Date.UTC(1969, 11, 31)),
    at: null, local_ts: null, ts: new Date(0), name: 'ant-' + 'x'.repeat(40), uid: null, blob: null, code: null, loc: null,
    tags: [], attrs: null,
  },
];

let dir: string;
let file: string;
let db: DuckDBConnection;
const written = writeParquetDataFile({ schema, rows });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'floe-parquet-'));
  file = join(dir, 'data.parquet');
  writeFileSync(file, written.bytes);
  db = await (await DuckDBInstance.create(':memory:')).connect();
  await db.run("SET TimeZone = 'UTC'");
});
afterAll(() => {
  db?.closeSync();
  rmSync(dir, { recursive: true, force: true });
});

async function query(sql: string) {
  return (await db.runAndReadAll(sql)).getRowObjectsJson();
}

test('DuckDB reads back the values', async () => {
  const got = await query(`
    SELECT id::VARCHAR id, flag, qty, ratio, score::VARCHAR score, price::VARCHAR price, big::VARCHAR big, huge::VARCHAR huge,
      "day"::VARCHAR "day", "at"::VARCHAR "at", local_ts::VARCHAR local_ts, ts::VARCHAR ts, name, uid::VARCHAR uid,
      hex(blob) blob, hex(code) code, loc.lat lat, loc.lon lon, tags, map_keys(attrs) k, map_values(attrs)::VARCHAR[] v
    FROM read_parquet('${file}') ORDER BY id DESC`);
  expect(got[0]).toEqual({
    id: '9007199254740993', flag: true, qty: -7, ratio: 0.5, score: 'nan', price: '123.45', big: '-1234567.891',
    huge: '12345678901234567890.1234', day: '2024-02-29', at: '13:14:15.123456', local_ts: '2024-02-29 13:14:15.123456',
    ts: '2024-02-29 13:14:15.123456+00', name: 'zebra', uid: 'f79c3e09-677c-4bbd-a479-3f349cb785e7',
    blob: '010203', code: '09080706', lat: 1.5, lon: -2.25, tags: ['a', null, 'b'], k: ['x'], v: ['1'],
  });
  expect(got[1]).toMatchObject({
    id: '2', flag: null, qty: 42, price: null, big: '0.001', day: '1969-12-31', ts: '1970-01-01 00:00:00+00',
    uid: null, lat: null, tags: [], k: null,
  });
});

test('DuckDB parquet_schema() shows the Iceberg field ids and logical types', async () => {
  const cols = await query(`SELECT name, type, field_id, logical_type, converted_type FROM parquet_schema('${file}')`);
  const byName = new Map(cols.map((c: any) => [c.name, c]));
  const ids = (['id', 'flag', 'price', 'huge', 'day', 'at', 'ts', 'uid', 'loc', 'lat', 'tags', 'element', 'attrs', 'key', 'value'] as const)
    .map((n) => [n, Number(byName.get(n)!.field_id)]);
  expect(Object.fromEntries(ids)).toEqual({
    id: 1, flag: 2, price: 6, huge: 8, day: 9, at: 10, ts: 12, uid: 14, loc: 17, lat: 18, tags: 20, element: 21, attrs: 22, key: 23, value: 24,
  });
  expect(byName.get('price')).toMatchObject({ type: 'INT32', converted_type: 'DECIMAL' });
  expect(byName.get('big')).toMatchObject({ type: 'INT64', converted_type: 'DECIMAL' });
  expect(byName.get('huge')).toMatchObject({ type: 'FIXED_LEN_BYTE_ARRAY' });
  expect(String(byName.get('local_ts')!.logical_type)).toMatch(/isAdjustedToUTC=0.*MICROS=MicroSeconds/);
  expect(String(byName.get('ts')!.logical_type)).toMatch(/isAdjustedToUTC=1/);
  const kv = await query(`SELECT decode(key) k, decode(value) v FROM parquet_kv_metadata('${file}')`);
  expect(JSON.parse(kv.find((r: any) => r.k === 'iceberg.schema')!.v as string)).toEqual(schema);
});

test('hyparquet reads back the values and field ids', async () => {
  const buf = written.bytes.buffer.slice(written.bytes.byteOffset, written.bytes.byteOffset + written.bytes.byteLength) as ArrayBuffer;
  const meta = parquetMetadata(buf);
  expect(meta.schema.filter((e) => e.field_id !== undefined).map((e) => e.field_id)).toEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
  );
  const objs = await parquetReadObjects({ file: buf });
  expect(objs[0].id).toBe(9_007_199_254_740_993n);
  expect(objs[0].name).toBe('zebra');
  expect(objs[0].loc).toEqual({ lat: 1.5, lon: -2.25 });
  expect(objs[0].tags).toEqual(['a', null, 'b']);
  expect(objs[1].qty).toBe(42);
});

test('data file metrics for the manifest', () => {
  const s = written.stats;
  expect(s.record_count).toBe(2n);
  expect(s.file_size_in_bytes).toBe(BigInt(written.bytes.length));
  expect(s.split_offsets).toEqual([4n]);
  expect(s.value_counts.get(1)).toBe(2n);
  expect(s.null_value_counts.get(2)).toBe(1n);
  expect(s.null_value_counts.get(18)).toBe(1n); // required field of a null struct
  expect(s.nan_value_counts.get(5)).toBe(1n);
  expect(s.column_sizes.get(21)).toBeGreaterThan(0n);
  expect(s.value_counts.has(21)).toBe(false); // no metrics inside lists/maps
  const lower = (id: number, type: string) => fromBinary(type, s.lower_bounds.get(id)!);
  const upper = (id: number, type: string) => fromBinary(type, s.upper_bounds.get(id)!);
  expect(lower(1, 'long')).toBe(2n);
  expect(upper(1, 'long')).toBe(9_007_199_254_740_993n);
  expect(Object.is(lower(4, 'float'), -0)).toBe(true);
  expect(lower(5, 'double')).toBe(1.25); // NaN is never a bound
  expect(lower(6, 'decimal(9,2)')).toBe(12345n);
  expect(lower(9, 'date')).toBe(-1);
  expect(upper(13, 'string')).toBe('zebra');
  expect(lower(13, 'string')).toBe('ant-xxxxxxxxxxxx'); // truncated to 16 code points
  expect(lower(14, 'uuid')).toBe('f79c3e09-677c-4bbd-a479-3f349cb785e7');
  expect(lower(12, 'timestamptz')).toBe(0n);
});

describe('column by column', () => {
  const colSchema: Schema = {
    type: 'struct',
    'schema-id': 1,
    fields: [
      { id: 1, name: 'id', required: true, type: 'long' },
      { id: 2, name: 'name', required: false, type: 'string' },
      { id: 3, name: 'ts', required: false, type: 'timestamptz' },
      { id: 4, name: 'score', required: false, type: 'double' },
    ],
  };
  // U+E000 sorts below U+1F600 by code point, above it by UTF-16 unit: the bounds must follow code points.
  const names = ['b\u{1F600}', null, 'b\uE000', 'aé', 'a'];
  const written = writeParquetDataFile({
    schema: colSchema,
    rowCount: 5,
    columns: {
      id: [5n, 4, -3n, 2, 9_007_199_254_740_993n], // numbers are converted as in rows
      name: names,
      ts: [0n, null, new Date(1000), '1970-01-01T00:00:02Z', 3_000_000n],
      score: [1.5, NaN, null, -2, 0],
    },
  });

  test('reads back as written, in order', async () => {
    const buf = written.bytes.buffer.slice(written.bytes.byteOffset, written.bytes.byteOffset + written.bytes.byteLength) as ArrayBuffer;
    const objs = await parquetReadObjects({ file: buf });
    expect(objs.map((o) => o.id)).toEqual([5n, 4n, -3n, 2n, 9_007_199_254_740_993n]);
    expect(objs.map((o) => o.name)).toEqual(names);
    expect(objs.map((o) => (o.ts === null ? null : (o.ts as Date).getTime()))).toEqual([0, null, 1000, 2000, 3000]);
  });

  test('metrics: counts and code point bounds', () => {
    const s = written.stats;
    expect(s.record_count).toBe(5n);
    expect([s.value_counts.get(2), s.null_value_counts.get(2)]).toEqual([5n, 1n]);
    expect([s.value_counts.get(3), s.null_value_counts.get(3)]).toEqual([5n, 1n]);
    expect(s.nan_value_counts.get(4)).toBe(1n);
    expect(fromBinary('string', s.lower_bounds.get(2)!)).toBe('a');
    expect(fromBinary('string', s.upper_bounds.get(2)!)).toBe('b\u{1F600}');
    expect([fromBinary('long', s.lower_bounds.get(1)!), fromBinary('long', s.upper_bounds.get(1)!)]).toEqual([-3n, 9_007_199_254_740_993n]);
    expect([fromBinary('timestamptz', s.lower_bounds.get(3)!), fromBinary('timestamptz', s.upper_bounds.get(3)!)]).toEqual([0n, 3_000_000n]);
  });

  test('a null in a required column, or a value of the wrong type, is refused', () => {
    expect(() => writeParquetDataFile({ schema: colSchema, rowCount: 1, columns: { id: [null] } })).toThrow('required field id is null');
    expect(() => writeParquetDataFile({ schema: colSchema, rowCount: 1, columns: { id: [1n], name: [7] } })).toThrow(/expected string/);
    expect(() => writeParquetDataFile({ schema: colSchema, rowCount: 1, columns: { id: ['x'] } })).toThrow(/64-bit integer/);
  });
});
