import request from 'supertest';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { vendedS3 } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { stack } from './helpers';

// Issue 30: every column type the roller supports, sent to a sink, rolled on
// the data-plane engine, and read back by icebird (an independent reader)
// equal to what was sent. One batch holds only the forms the engine reads in
// SQL; the other holds forms it leaves to the JavaScript reading (nested
// values, numbers in strings), whose rows the engine writes too. One roll,
// then a test per type.

const schema = {
  type: 'struct',
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'i', required: false, type: 'int' },
    { id: 3, name: 'd', required: false, type: 'double' },
    { id: 4, name: 'f', required: false, type: 'float' },
    { id: 5, name: 'dec', required: false, type: 'decimal(10,2)' },
    { id: 6, name: 'b', required: false, type: 'boolean' },
    { id: 7, name: 's', required: false, type: 'string' },
    { id: 8, name: 'bin', required: false, type: 'binary' },
    { id: 9, name: 'day', required: false, type: 'date' },
    { id: 10, name: 't', required: false, type: 'time' },
    { id: 11, name: 'ts', required: false, type: 'timestamp' },
    { id: 12, name: 'tstz', required: false, type: 'timestamptz' },
    { id: 13, name: 'u', required: false, type: 'uuid' },
    { id: 14, name: 'st', required: false, type: { type: 'struct', fields: [
      { id: 15, name: 'a', required: false, type: 'long' },
      { id: 16, name: 'b', required: false, type: 'string' },
    ] } },
    { id: 17, name: 'l', required: false, type: { type: 'list', 'element-id': 18, 'element-required': false, element: 'long' } },
    { id: 19, name: 'm', required: false, type: { type: 'map', 'key-id': 20, key: 'string', 'value-id': 21, 'value-required': false, value: 'long' } },
  ],
};

/** Row 1 in the forms read in SQL; row 2 in forms left to the JavaScript reading; row 3 all null. */
const sqlForms = {
  id: 1, i: 7, d: 2.5, f: 1.5, dec: '12.34', b: true, s: 'héllo "quoted"', bin: 'AAECfw==', day: '2026-11-27', t: '12:30:15.5',
  ts: '2026-11-27T10:00:00.123456Z', tstz: '2026-11-27T10:00:00.5Z', u: '123e4567-e89b-12d3-a456-426614174000', st: null, l: null, m: null,
};
const jsForms = {
  id: 2, i: '-8', d: '0.25', f: '-2', dec: 3.5, b: 'FALSE', s: 'x', bin: 'AA==', day: 20_000, t: 3_600_000_000, ts: '2026-11-27 10:00:00',
  tstz: '2026-11-27T11:00:00+01:00', u: '123e4567e89b12d3a456426614174001', st: { a: 5, b: 'in' }, l: [1, 2, null], m: { k: 9 },
};
const nulls = { id: 3 };

/** What icebird gives back for rows 1 and 2, per column, in a form toEqual compares (bigints, Dates and bytes as strings). */
const expected: Record<string, [unknown, unknown]> = {
  i: [7, -8],
  d: [2.5, 0.25],
  f: [1.5, -2],
  dec: [12.34, 3.5],
  b: [true, false],
  s: ['héllo "quoted"', 'x'],
  bin: ['0001027f', '00'],
  day: ['2026-11-27', '2024-10-04'],
  t: ['45015500000', '3600000000'],
  ts: ['2026-11-27T10:00:00.123Z', '2026-11-27T10:00:00.000Z'],
  tstz: ['2026-11-27T10:00:00.500Z', '2026-11-27T10:00:00.000Z'],
  u: ['123e4567-e89b-12d3-a456-426614174000', '123e4567-e89b-12d3-a456-426614174001'],
  st: [null, { a: '5', b: 'in' }],
  l: [null, ['1', '2', null]],
  m: [null, { k: '9' }],
};

/**
 * icebird's value as a plain comparable one. icebird gives a uuid as its 16
 * bytes, and binary as text (it decodes every byte array as UTF-8: the bytes
 * sent here are below 0x80, so the text is exact); both become hex.
 */
function plain(v: unknown, column?: string): unknown {
  if (v === null || v === undefined) return null;
  if (column === 'bin' && typeof v === 'string') return Buffer.from(v, 'utf8').toString('hex');
  if (column === 'u' && v instanceof Uint8Array) return Buffer.from(v).toString('hex').replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
  if (typeof v === 'bigint') return v.toString();
  if (v instanceof Date) return v.getTime() % 86_400_000 === 0 ? v.toISOString().slice(0, 10) : v.toISOString();
  if (v instanceof Uint8Array) return Buffer.from(v).toString('hex');
  if (Array.isArray(v)) return v.map((x) => plain(x));
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, plain(x)]));
  return v;
}

let rows: Array<Record<string, unknown>>;
let rolled: any;
/** The same rows through the hosted query (POST /v1/query, issue 35). */
let queried: any;

beforeAll(async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'typed', schema }).expect(201);
  const sink = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `t${uniq()}`, table: 'events.typed', warehouse: w.name, inactivity_seconds: 1 })).body;
  const send = (batchId: string, body: unknown[]) => request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`).set(bearer(sink.send_key))
    .set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(JSON.stringify(body)).expect(202);
  await send('sql-forms', [sqlForms, nulls]);
  await send('js-forms', [jsForms]);
  rolled = await until('the roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key));
    return got.body.lag.batches_waiting === 0 && got.body.last_roll ? got.body : null;
  }, 60);
  const conn = await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key));
  const catalogToken = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const { metadata } = await vendedS3({ warehouseId: w.warehouse_id, bucket: w.bucket, token: catalogToken, namespace: 'events', table: 'typed' });
  rows = (await readWithIcebird(stack().s3_url, w.bucket, metadata)).sort((a: any, b: any) => Number(a.id) - Number(b.id));
  queried = (await gateway().post('/v1/query').set(bearer(admin.api_key)).send({ warehouse: w.name, sql: 'SELECT * FROM events.typed ORDER BY id' })).body;
}, 90_000);

test('every row is appended, none rejected', () => {
  expect(rolled.rejects.rows).toBe(0);
  expect(rows.map((r) => Number(r.id))).toEqual([1, 2, 3]);
  for (const r of rows) expect(r.__ingest_ts).toBeInstanceOf(Date);
});

test.each(Object.keys(expected))('a %s column reads back as sent', (column) => {
  expect(rows.map((r) => plain(r[column], column))).toEqual([...expected[column], null]);
});

/**
 * The hosted query's JSON value (DuckDB's JSON forms: decimals as text,
 * times and timestamps as text, blobs escaped, maps as lists of entries) as
 * icebird's, for one compare.
 */
function fromQuery(v: unknown, column: string): unknown {
  if (v === null || v === undefined) return null;
  const nested = (x: unknown): unknown => x === null ? null : typeof x === 'number' ? String(x) : Array.isArray(x) ? x.map(nested) : typeof x === 'object' ? Object.fromEntries(Object.entries(x as object).map(([k, y]) => [k, nested(y)])) : x;
  switch (column) {
    case 'dec': return Number(v);
    case 'bin': return Buffer.from(String(v).replace(/\\x([0-9A-Fa-f]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('hex');
    case 't': {
      const [h, m, sec] = String(v).split(':');
      return String(Math.round((Number(h) * 3600 + Number(m) * 60 + Number(sec)) * 1e6));
    }
    case 'ts': case 'tstz': return new Date(`${String(v).replace(' ', 'T').replace(/\+00$/, '')}${/[Z+]/.test(String(v).slice(19)) ? '' : 'Z'}`).toISOString();
    case 'st': case 'l': return nested(v);
    // A map comes as a list of {key, value} (its keys need not be text).
    case 'm': return nested(Object.fromEntries((v as Array<{ key: string; value: unknown }>).map((e) => [e.key, e.value])));
    default: return v;
  }
}

test('the hosted query reads the same rows with every column typed', () => {
  expect(queried.row_count).toBe(3);
  expect(queried.columns.map((c: { name: string }) => c.name)).toEqual([...schema.fields.map((f) => f.name), '__ingest_ts']);
});

test.each(Object.keys(expected))('the hosted query reads a %s column as icebird does', (column) => {
  expect(queried.rows.map((r: Record<string, unknown>) => fromQuery(r[column], column))).toEqual(rows.map((r) => plain(r[column], column)));
});
