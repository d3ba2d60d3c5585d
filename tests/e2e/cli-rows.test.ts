// `floe rows`, run as the installed binary against the private stack: a table
// made through POST /v1/tables, rows appended the way an engine appends them
// (append-helpers.ts), then read back by the CLI alone — Floe's read-only
// connection, a catalog token, the table loaded with vended credentials, its
// Parquet files read by icebird over signed requests. Also: a table with no
// snapshot, an unknown table and catalog, a member without read, and another
// organisation's key.
import { join as joinOrg, uniq } from './control-plane-helpers';
import { appendRows, type TableRef } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, newPrincipal, stack, type NewPrincipal } from './helpers';
import { floe, tempConfigDir } from '../support/floe-cli';

const schema = {
  type: 'struct',
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'msg', required: false, type: 'string' },
    { id: 3, name: 'big', required: false, type: 'long' },
    { id: 4, name: 'price', required: false, type: 'decimal(10,2)' },
    { id: 5, name: 'day', required: false, type: 'date' },
    { id: 6, name: 'at', required: false, type: 'timestamptz' },
    { id: 7, name: 'ok', required: false, type: 'boolean' },
    { id: 8, name: 'score', required: false, type: 'double' },
  ],
};
const columns = schema.fields.map((f) => f.name);

// What is written, and the NDJSON line each row must come back as (a long past 2^53 as a string).
const written = [
  { id: 1n, msg: 'ada', big: 2n ** 60n, price: '12.50', day: '2024-02-29', at: '2024-01-02T03:04:05.006Z', ok: true, score: 1.5 },
  { id: 2n, msg: 'bo', big: 7n, price: '0.10', day: '1999-12-31', at: '2025-06-30T23:59:59.999Z', ok: false, score: -2.25 },
  { id: 3n, msg: null, big: null, price: null, day: null, at: null, ok: null, score: null },
  { id: 4n, msg: 'cy', big: -(2n ** 62n), price: '99999999.99', day: '1970-01-01', at: '1970-01-01T00:00:00.000Z', ok: true, score: 0 },
  { id: 5n, msg: 'di two', big: 0n, price: '-3.05', day: '2100-01-01', at: '2030-01-01T12:00:00.000Z', ok: false, score: 1e-9 },
];
const expected = [
  { id: 1, msg: 'ada', big: '1152921504606846976', price: 12.5, day: '2024-02-29', at: '2024-01-02T03:04:05.006Z', ok: true, score: 1.5 },
  { id: 2, msg: 'bo', big: 7, price: 0.1, day: '1999-12-31', at: '2025-06-30T23:59:59.999Z', ok: false, score: -2.25 },
  { id: 3, msg: null, big: null, price: null, day: null, at: null, ok: null, score: null },
  { id: 4, msg: 'cy', big: '-4611686018427387904', price: 99999999.99, day: '1970-01-01', at: '1970-01-01T00:00:00.000Z', ok: true, score: 0 },
  { id: 5, msg: 'di two', big: 0, price: -3.05, day: '2100-01-01', at: '2030-01-01T12:00:00.000Z', ok: false, score: 1e-9 },
];

let admin: string;
let warehouseId: string;
let outsider: string;
let member: NewPrincipal;
let head: bigint;
const config = tempConfigDir();
afterAll(() => config.cleanup());

const withKey = (key: string) => ({ FLOE_API_KEY: key, FLOE_BASE_URL: stack().base_url, FLOE_CONFIG_DIR: config.dir });
const byId = (rows: Array<{ id: number }>) => [...rows].sort((a, b) => a.id - b.id);
const ndjson = (stdout: string) => stdout.trim().split('\n').map((l) => JSON.parse(l));

async function signup(workspace: string) {
  const res = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'duckdb', accept_terms: true });
  expect(res.status).toBe(201);
  return res.body as { api_key: string; warehouse_id: string };
}

async function createTable(namespace: string, name: string) {
  const res = await gateway().post('/v1/tables').set(bearer(admin)).send({ warehouse_id: 'lake', namespace, name, schema });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  const own = await signup(`rows-${uniq()}`);
  admin = own.api_key;
  warehouseId = own.warehouse_id;
  outsider = (await signup(`rows-other-${uniq()}`)).api_key;
  const orgs = await gateway().get('/v1/orgs').set(bearer(admin));
  const org = orgs.body.organizations[0];
  member = await newPrincipal('human');
  await joinOrg({ org_id: org.org_id, handle: org.handle, name: org.name }, member, 'member');

  await createTable('shop', 'orders');
  await createTable('shop', 'empty');
  await createTable('shop.eu', 'orders');
  const bucket = (await gateway().get(`/v1/warehouses/${warehouseId}`).set(bearer(admin))).body.warehouse_name as string;
  const rw = (await gateway().get('/v1/connection').query({ warehouse: 'lake', level: 'write' }).set(bearer(admin))).body.catalog_credential;
  const ref = (namespace: string, table: string): TableRef => ({ warehouseId, bucket, token: '', namespace, table });
  const catalogToken = await token(rw.client_id, rw.client_secret);
  // Two appends: two data files, so a row range crosses from one to the next.
  await appendRows({ ...ref('shop', 'orders'), token: catalogToken }, written.slice(0, 3));
  head = (await appendRows({ ...ref('shop', 'orders'), token: catalogToken }, written.slice(3))).snapshotId;
  await appendRows({ ...ref('shop.eu', 'orders'), token: catalogToken }, written.slice(0, 1));
}, 90_000);

test('--json prints every row as written, one JSON object per line, keys in schema order', async () => {
  const r = await floe(['rows', 'lake', 'shop.orders', '--json'], withKey(admin));
  expect(r.code).toBe(0);
  const rows = ndjson(r.stdout);
  expect(byId(rows)).toEqual(expected);
  for (const row of rows) expect(Object.keys(row)).toEqual(columns);
  expect(r.stderr.trim()).toBe(`5 rows of 5 (snapshot ${head})`);
});

test('the text table: the column names, then one aligned line per row; NULL for a null', async () => {
  const r = await floe(['rows', 'lake', 'shop.orders'], withKey(admin));
  expect(r.code).toBe(0);
  const lines = r.stdout.trimEnd().split('\n');
  expect(lines[0].split(/\s{2,}/)).toEqual(columns);
  const cells = lines.slice(1).map((l) => l.split(/\s{2,}/));
  expect(cells.map((c) => c.slice(0, 2)).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([['1', 'ada'], ['2', 'bo'], ['3', 'NULL'], ['4', 'cy'], ['5', 'di two']]);
  expect(cells.find((c) => c[0] === '1')).toEqual(['1', 'ada', '1152921504606846976', '12.50', '2024-02-29', '2024-01-02T03:04:05.006Z', 'true', '1.5']);
  expect(cells.find((c) => c[0] === '3')).toEqual(['3', ...Array(7).fill('NULL')]);
  // Aligned: every cell starts where its column's name does.
  const starts = (l: string) => [...l.matchAll(/\S+(?: \S+)*/g)].map((m) => m.index);
  for (const l of lines) expect(starts(l)).toEqual(starts(lines[0]));
  expect(r.stderr.trim()).toBe(`5 rows of 5 (snapshot ${head})`);
});

test('--limit cuts the rows (across data files) and the footer still counts them all', async () => {
  const r = await floe(['rows', 'lake', 'shop.orders', '--json', '--limit', '4'], withKey(admin));
  expect(r.code).toBe(0);
  const rows = ndjson(r.stdout);
  expect(rows).toHaveLength(4);
  expect(new Set(rows.map((row) => row.id)).size).toBe(4);
  for (const row of rows) expect(row).toEqual(expected.find((e) => e.id === row.id));
  expect(r.stderr.trim()).toBe(`4 rows of 5 (snapshot ${head})`);
});

test('a namespace with levels (shop.eu.orders); a member holding read by membership reads too', async () => {
  const r = await floe(['rows', 'lake', 'shop.eu.orders', '--json'], withKey(member.api_key));
  expect(r.code).toBe(0);
  expect(ndjson(r.stdout)).toEqual([expected[0]]);
  expect(r.stderr).toMatch(/^1 rows of 1 \(snapshot \d+\)\n$/);
});

test('a table with no snapshot prints no rows and says so', async () => {
  for (const args of [[], ['--json']]) {
    const r = await floe(['rows', 'lake', 'shop.empty', ...args], withKey(admin));
    expect(r).toEqual({ code: 0, stdout: '', stderr: '0 rows: shop.empty has no snapshot yet (nothing appended).\n' });
  }
});

test("an unknown table is the catalog's NoSuchTableException; an unknown catalog Floe's warehouse_not_found; both exit 1", async () => {
  const table = await floe(['rows', 'lake', 'shop.nope'], withKey(admin));
  expect(table.code).toBe(1);
  expect(table.stdout).toBe('');
  expect(table.stderr).toMatch(/^error: NoSuchTableException: Table does not exist: shop\.nope \(HTTP 404\) — see `floe tables list <catalog>` \[request \S+\]\n$/);
  const ns = await floe(['rows', 'lake', 'nowhere.orders'], withKey(admin));
  expect(ns.code).toBe(1);
  expect(ns.stderr).toContain('error: NoSuchTableException: ');

  const catalog = await floe(['rows', `nope_${uniq()}`, 'shop.orders'], withKey(admin));
  expect(catalog.code).toBe(1);
  expect(catalog.stderr).toContain('error: warehouse_not_found: ');
  expect(catalog.stderr).not.toMatch(/\n\s+at /);
});

test("another organisation's key is refused this catalog (404), and its own `lake` has no such table", async () => {
  const byId = await floe(['rows', warehouseId, 'shop.orders'], withKey(outsider));
  expect(byId.code).toBe(1);
  expect(byId.stdout).toBe('');
  expect(byId.stderr).toContain('error: warehouse_not_found: ');
  const byName = await floe(['rows', 'lake', 'shop.orders', '--json'], withKey(outsider));
  expect(byName.code).toBe(1);
  expect(byName.stdout).toBe('');
  expect(byName.stderr).toContain('"code":"NoSuchTableException"');
});

test('a member whose read was revoked is refused (403 forbidden), exit 3', async () => {
  const other = await newPrincipal('human');
  const org = (await gateway().get('/v1/orgs').set(bearer(admin))).body.organizations[0];
  await joinOrg({ org_id: org.org_id, handle: org.handle, name: org.name }, other, 'member');
  expect((await floe(['rows', 'lake', 'shop.orders', '--limit', '1'], withKey(other.api_key))).code).toBe(0);
  const revoked = await gateway().delete(`/v1/warehouses/${warehouseId}/grants/${other.principal_id}`).set(bearer(admin));
  expect(revoked.body).toMatchObject({ level: 'none' });
  const r = await floe(['rows', 'lake', 'shop.orders'], withKey(other.api_key));
  expect(r.code).toBe(3);
  expect(r.stdout).toBe('');
  expect(r.stderr).toContain('error: forbidden: ');
});
