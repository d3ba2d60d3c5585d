import { admitQuery } from '../../services/control-plane/src/domain/query/admission';
import { readWithIcebird } from '../support/icebird';
import { appendRows, deleteRows, vendedS3, type TableRef } from './append-helpers';
import { catalog, token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { redis, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 35: POST /v1/query — a read-only statement over a catalog's tables,
// run by the query worker in a sandbox of its own over the tables' files,
// read with sessions the catalog vends per table. Every answer is compared
// with icebird (an independent reader) at the same snapshot: appends, an
// older snapshot by id and by time, v2 position and equality deletes, v3
// deletion vectors. Then the refusals: the hostile statements, other
// tenants, levels, the timeout, and the shared queue under 50 at once.

type Org = Awaited<ReturnType<typeof newOrgWithAdmin>>;
let o: Org;
let w: Awaited<ReturnType<typeof newWarehouse>>;
let base: TableRef;

const ask = (key: string, body: Record<string, unknown>) => gateway().post('/v1/query').set(bearer(key)).send({ warehouse: w.warehouse_id, ...body });
const ids = (rows: Array<Record<string, unknown>>) => rows.map((r) => Number(r.id)).sort((a, b) => a - b);

async function newTable(name: string, formatVersion = 2): Promise<TableRef> {
  await gateway().post('/v1/tables').set(bearer(o.admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'q', name, schema: sinkTestSchema, format_version: formatVersion }).expect(201);
  return { ...base, table: name };
}

/** What icebird reads of the table now: ids, sorted. */
async function icebirdIds(ref: TableRef): Promise<number[]> {
  const { metadata } = await vendedS3(ref);
  return ids(await readWithIcebird(stack().s3_url, w.bucket, metadata));
}

const rowsOf = (from: number, count: number) => Array.from({ length: count }, (_, k) => ({ id: BigInt(from + k), msg: `m${from + k}` }));

beforeAll(async () => {
  o = await newOrgWithAdmin();
  w = await newWarehouse(o.admin.api_key, (await newProject(o.admin.api_key)).project_id, `query_${uniq()}`);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(o.admin.api_key)).expect(200)).body.catalog_credential;
  base = { warehouseId: w.warehouse_id, bucket: w.bucket, token: await token(credential.client_id, credential.client_secret), namespace: 'q', table: '' };
  await catalog().post(`/v1/${w.warehouse_id}/namespaces`).set(bearer(base.token)).send({ namespace: ['q'] }).expect(200);
}, 60_000);

test('rows, columns and the snapshot read equal what icebird reads; an older snapshot by id and as of a moment', async () => {
  const t = await newTable('events');
  const empty = await ask(o.admin.api_key, { sql: 'SELECT * FROM q.events' });
  expect(empty.status).toBe(200);
  expect(empty.body).toMatchObject({ columns: [{ name: 'id', type: 'BIGINT' }, { name: 'msg', type: 'VARCHAR' }], rows: [], row_count: 0, truncated: false, snapshot_ids: { 'q.events': null } });

  const first = await appendRows(t, rowsOf(1, 5));
  const between = Date.now();
  await new Promise((r) => setTimeout(r, 20));
  const second = await appendRows(t, rowsOf(6, 5));

  const now = await ask(o.admin.api_key, { sql: 'SELECT id, msg FROM q.events ORDER BY id' });
  expect(now.status).toBe(200);
  expect(now.headers['cache-control']).toBe('no-store');
  expect(now.body).toMatchObject({
    warehouse: w.name, warehouse_id: w.warehouse_id, row_count: 10, truncated: false, limit: 2000, byte_limit: 1048576,
    snapshot_ids: { 'q.events': String(second.snapshotId) }, files_scanned: 2, files_skipped: 0,
  });
  expect(now.body.rows[0]).toEqual({ id: '1', msg: 'm1' });
  expect(ids(now.body.rows)).toEqual(await icebirdIds(t));
  expect(now.body.bytes_scanned).toBeGreaterThan(0);
  expect(now.body.statement).toMatch(/^SELECT id, msg FROM q\.events ORDER BY id/);

  const old = await ask(o.admin.api_key, { sql: 'SELECT id FROM q.events', snapshot_id: String(first.snapshotId) });
  expect(old.status).toBe(200);
  expect(ids(old.body.rows)).toEqual([1, 2, 3, 4, 5]);
  expect(old.body.snapshot_ids).toEqual({ 'q.events': String(first.snapshotId) });
  const asOf = await ask(o.admin.api_key, { sql: 'SELECT count(*) AS n FROM q.events', as_of: new Date(between).toISOString() });
  expect(asOf.body.rows).toEqual([{ n: '5' }]);
  expect(asOf.body.snapshot_ids).toEqual({ 'q.events': String(first.snapshotId) });

  expectError(await ask(o.admin.api_key, { sql: 'SELECT 1 FROM q.events', snapshot_id: '12345' }), 404, 'not_found');
  expectError(await ask(o.admin.api_key, { sql: 'SELECT 1 FROM q.events', as_of: '2001-01-01T00:00:00Z' }), 404, 'not_found');
  expectError(await ask(o.admin.api_key, { sql: 'SELECT 1 FROM q.events', as_of: 1, snapshot_id: '1' }), 400, 'invalid_value');

  // Files whose column bounds rule out the WHERE are not read; the rows are the same.
  const pruned = await ask(o.admin.api_key, { sql: 'SELECT id FROM q.events WHERE id > 7 ORDER BY id' });
  expect(pruned.body).toMatchObject({ rows: [{ id: '8' }, { id: '9' }, { id: '10' }], files_scanned: 1, files_skipped: 1 });
  expect((await ask(o.admin.api_key, { sql: 'SELECT count(*) AS n FROM q.events WHERE id > 7 OR id < 2' })).body).toMatchObject({ rows: [{ n: '4' }], files_skipped: 0 });

  // The limit, and the cap.
  const limited = await ask(o.admin.api_key, { sql: 'SELECT * FROM q.events ORDER BY id', limit: 3 });
  expect(limited.body).toMatchObject({ row_count: 3, truncated: true, limit: 3 });
  const capped = await ask(o.admin.api_key, { sql: 'SELECT * FROM range(5000) r' });
  expect(capped.body).toMatchObject({ row_count: 2000, truncated: true });
  expectError(await ask(o.admin.api_key, { sql: 'SELECT 1', limit: 2001 }), 400, 'invalid_value');
}, 120_000);

test.each([
  ['v2 position deletes', 2, 'position'],
  ['v2 equality deletes', 2, 'equality'],
  ['v3 deletion vectors', 3, 'position'],
] as const)('%s are applied as icebird applies them', async (_label, version, kind) => {
  const t = await newTable(`del${version}${kind}`, version);
  const a = await appendRows(t, rowsOf(1, 6));
  await appendRows(t, rowsOf(7, 4));
  if (kind === 'equality') await deleteRows(t, a.dataPath, [], [2n, 8n]);
  else await deleteRows(t, a.dataPath, [0n, 3n]);
  const got = await ask(o.admin.api_key, { sql: `SELECT id FROM q.${t.table}` });
  expect(got.status).toBe(200);
  const expected = kind === 'equality' ? [1, 3, 4, 5, 6, 7, 9, 10] : [2, 3, 5, 6, 7, 8, 9, 10];
  expect(ids(got.body.rows)).toEqual(expected);
  // icebird 0.3 reads a deletion vector's Puffin file as Parquet and fails: v3 is checked against the rows deleted.
  if (version === 2) expect(await icebirdIds(t)).toEqual(expected);
}, 60_000);

test('a partitioned table: an equality delete of one partition leaves the same ids of the others; a partition not asked for is not read', async () => {
  await catalog().post(`/v1/${w.warehouse_id}/namespaces/q/tables`).set(bearer(base.token)).send({
    name: 'parted', schema: { type: 'struct', 'schema-id': 0, fields: sinkTestSchema.fields },
    'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 2, 'field-id': 1000, name: 'msg', transform: 'identity' }] },
  }).expect(200);
  const t = { ...base, table: 'parted' };
  const part = (msg: string) => Array.from({ length: 5 }, (_, k) => ({ id: BigInt(k + 1), msg }));
  await appendRows(t, part('a'), 1, { partition: { msg: 'a' } });
  const b = await appendRows(t, part('b'), 1, { partition: { msg: 'b' } });
  await deleteRows(t, b.dataPath, [], [2n], { msg: 'b' });
  const got = await ask(o.admin.api_key, { sql: 'SELECT id, msg FROM q.parted ORDER BY msg, id' });
  expect(got.status).toBe(200);
  const pairs = got.body.rows.map((r: { id: string; msg: string }) => `${r.msg}${r.id}`);
  expect(pairs).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'b1', 'b3', 'b4', 'b5']);
  // icebird 0.3 applies an equality delete to every partition, against the spec (Scan Planning: an equality
  // delete of a partitioned spec applies to data files of its own partition), so it also drops a2: the
  // partition the delete names is compared with icebird, the other with the spec.
  const { metadata } = await vendedS3(t);
  const read = await readWithIcebird(stack().s3_url, w.bucket, metadata);
  expect(read.map((r: any) => `${r.msg}${r.id}`).filter((p: string) => p.startsWith('b')).sort()).toEqual(pairs.filter((p: string) => p.startsWith('b')));
  const onlyA = await ask(o.admin.api_key, { sql: "SELECT count(*) AS n FROM q.parted WHERE msg = 'a'" });
  expect(onlyA.body).toMatchObject({ rows: [{ n: '5' }], files_skipped: 1 });
}, 60_000);

test('two tables in one statement, each at its own snapshot', async () => {
  const left = await newTable('left');
  const right = await newTable('right');
  await appendRows(left, rowsOf(1, 4));
  await appendRows(right, rowsOf(3, 4));
  const got = await ask(o.admin.api_key, { sql: 'SELECT l.id FROM q.left l JOIN q.right r ON l.id = r.id ORDER BY 1' });
  expect(got.status).toBe(200);
  expect(got.body.rows).toEqual([{ id: '3' }, { id: '4' }]);
  expect(Object.keys(got.body.snapshot_ids).sort()).toEqual(['q.left', 'q.right']);
  expectError(await ask(o.admin.api_key, { sql: 'SELECT * FROM q.left, q.right', snapshot_id: '1' }), 400, 'invalid_value');
}, 60_000);

test('the sandbox holds against hostile statements, each refused in the envelope with the worker still serving', async () => {
  const t = await newTable('target');
  await appendRows(t, rowsOf(1, 2));
  const { location } = await vendedS3(t);
  const hostile = [
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/passwd')",
    "SELECT * FROM read_blob('/etc/passwd')",
    "SELECT * FROM read_json('/etc/passwd')",
    "SELECT * FROM read_parquet('/etc/passwd')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM glob('/etc/*')",
    `SELECT * FROM read_parquet('${location}/data/*.parquet')`,
    `SELECT * FROM read_parquet('${stack().s3_url}/${w.bucket}/q/target/data/x.parquet')`,
    "COPY (SELECT 1) TO '/tmp/floe-query-escape.csv'",
    "ATTACH '/tmp/floe-query-escape.db' AS x",
    'INSTALL httpfs',
    'LOAD httpfs',
    "SET enable_external_access = true",
    "PRAGMA enable_profiling",
    "SELECT getenv('HOME')",
    "SELECT current_setting('allowed_directories')",
    'SELECT 1; SELECT 2',
    'DROP TABLE q.target',
    'CREATE TABLE q.x AS SELECT 1',
    "SELECT * FROM lake.q.target",
    'SELECT * FROM target',
  ];
  for (const sqlText of hostile) {
    const res = await ask(o.admin.api_key, { sql: sqlText });
    expect([res.status, res.body.error?.code, sqlText]).toEqual([400, 'invalid_value', sqlText]);
    expect(JSON.stringify(res.body)).not.toContain('root:x:0:0');
  }
  // Still serving.
  expect((await ask(o.admin.api_key, { sql: 'SELECT count(*) AS n FROM q.target' })).body.rows).toEqual([{ n: '2' }]);
}, 120_000);

test('a cross join that would blow memory is refused or cut, never a crashed worker; a statement that never ends is 408 query_timeout', async () => {
  const t = await newTable('big');
  await appendRows(t, rowsOf(1, 3));
  const blow = await ask(o.admin.api_key, { sql: 'SELECT a.range, b.range, repeat(\'x\', 1000) FROM range(100000) a, range(100000) b ORDER BY 3, 1 DESC' });
  expect([400, 408]).toContain(blow.status);
  expect(['invalid_value', 'query_timeout']).toContain(blow.body.error.code);
  const forever = await ask(o.admin.api_key, { sql: 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT count(*) FROM r' });
  expectError(forever, 408, 'query_timeout');
  expect((await ask(o.admin.api_key, { sql: 'SELECT count(*) AS n FROM q.big' })).body.rows).toEqual([{ n: '3' }]);
}, 90_000);

test('refusals: fields, unknown tables, levels, other tenants, other surfaces', async () => {
  expectError(await gateway().post('/v1/query').send({ warehouse: w.warehouse_id, sql: 'SELECT 1' }), 401, 'unauthorized');
  expectError(await ask(o.admin.api_key, {}), 400, 'missing_field');
  expectError(await gateway().post('/v1/query').set(bearer(o.admin.api_key)).send({ sql: 'SELECT 1' }), 400, 'missing_field');
  expectError(await ask(o.admin.api_key, { sql: 42 }), 400, 'invalid_value');
  expectError(await ask(o.admin.api_key, { sql: 'SELECT \u0000 1' }), 400, 'invalid_value');
  expectError(await ask(o.admin.api_key, { sql: 'SELECT * FROM q.nothing_here' }), 404, 'not_found');
  expectError(await ask(o.admin.api_key, { sql: 'SELECT * FROM nowhere.t' }), 404, 'not_found');

  // A member reads by default; one whose read is revoked is refused.
  const member = await newMember(o.org);
  expect((await ask(member.api_key, { sql: 'SELECT 1 AS one' })).body.rows).toEqual([{ one: 1 }]);
  await gateway().delete(`/v1/warehouses/${w.warehouse_id}/grants/${member.principal_id}`).set(bearer(o.admin.api_key)).expect(200);
  expectError(await ask(member.api_key, { sql: 'SELECT 1' }), 403, 'forbidden');

  // Another tenant's admin cannot name this catalog, by id or name; nor can a statement here reach a table of theirs.
  const other = await newOrgWithAdmin();
  const stranger = other.admin;
  const theirs = await newWarehouse(stranger.api_key, (await newProject(stranger.api_key)).project_id, `theirs_${uniq()}`);
  await gateway().post('/v1/tables').set(bearer(stranger.api_key)).send({ warehouse_id: theirs.warehouse_id, namespace: 'secret', name: 'rows', schema: sinkTestSchema }).expect(201);
  expect((await gateway().post('/v1/query').set(bearer(stranger.api_key)).send({ warehouse: theirs.warehouse_id, sql: 'SELECT count(*) AS n FROM secret.rows' })).body.rows).toEqual([{ n: '0' }]);
  expectError(await ask(o.admin.api_key, { sql: 'SELECT * FROM secret.rows' }), 404, 'not_found');
  expectError(await gateway().post('/v1/query').set(bearer(o.admin.api_key)).send({ warehouse: theirs.warehouse_id, sql: 'SELECT * FROM secret.rows' }), 404, 'warehouse_not_found');
  expectError(await ask(stranger.api_key, { sql: 'SELECT 1' }), 404, 'warehouse_not_found');
  expectError(await gateway().post('/v1/query').set(bearer(stranger.api_key)).send({ warehouse: w.name, sql: 'SELECT 1' }), 404, 'warehouse_not_found');
  // A catalog credential is no API credential.
  expectError(await gateway().post('/v1/query').set(bearer(base.token)).send({ warehouse: w.warehouse_id, sql: 'SELECT 1' }), 401, 'unauthorized');
}, 60_000);

test('50 at once: the shared queue answers busy with Retry-After beyond the share, never 5xx', async () => {
  const t = await newTable('crowd');
  await appendRows(t, rowsOf(1, 50));
  const answers = await Promise.all(Array.from({ length: 50 }, () => ask(o.admin.api_key, { sql: 'SELECT sum(id) AS s FROM q.crowd' })));
  const statuses = answers.map((r) => r.status);
  expect(statuses.every((s) => s === 200 || s === 429)).toBe(true);
  const ok = answers.filter((r) => r.status === 200);
  const busy = answers.filter((r) => r.status === 429);
  expect(ok.length).toBeGreaterThanOrEqual(1);
  expect(busy.length).toBeGreaterThanOrEqual(1);
  for (const r of ok) expect(r.body.rows).toEqual([{ s: '1275' }]);
  for (const r of busy) {
    expect(r.body.error).toMatchObject({ code: 'busy', retry_after_seconds: 2 });
    expect(r.headers['retry-after']).toBe('2');
  }
}, 90_000);

test('admission: twenty at once take exactly the organisation\'s share, and places come back', async () => {
  const r = redis();
  const prefix = `${stack().redis_prefix}test-${uniq()}:`;
  const takes = await Promise.allSettled(Array.from({ length: 20 }, () => admitQuery(r, prefix, { concurrency: 8, orgShare: 4 }, 'org_a', Date.now() + 60_000)));
  const taken = takes.filter((t) => t.status === 'fulfilled');
  expect(taken).toHaveLength(4);
  for (const t of takes.filter((x) => x.status === 'rejected')) expect((t as PromiseRejectedResult).reason).toMatchObject({ status: 429, code: 'busy' });
  // Another organisation takes the deployment's rest, exactly.
  const others = await Promise.allSettled(Array.from({ length: 20 }, (_, i) => admitQuery(r, prefix, { concurrency: 8, orgShare: 4 }, `org_${i % 2 ? 'b' : 'c'}`, Date.now() + 60_000)));
  expect(others.filter((t) => t.status === 'fulfilled')).toHaveLength(4);
  await Promise.all(taken.map((t) => (t as PromiseFulfilledResult<{ release(): Promise<void> }>).value.release()));
  await expect(admitQuery(r, prefix, { concurrency: 8, orgShare: 4 }, 'org_a', Date.now() + 60_000)).resolves.toBeDefined();
  // A place whose holder died lapses by itself.
  const lapsing = `${prefix}lapse:`;
  await Promise.all(Array.from({ length: 4 }, () => admitQuery(r, lapsing, { concurrency: 8, orgShare: 4 }, 'org_d', Date.now() + 50)));
  await expect(admitQuery(r, lapsing, { concurrency: 8, orgShare: 4 }, 'org_d', Date.now() + 60_000)).rejects.toMatchObject({ code: 'busy' });
  await new Promise((r) => setTimeout(r, 80));
  await expect(admitQuery(r, lapsing, { concurrency: 8, orgShare: 4 }, 'org_d', Date.now() + 60_000)).resolves.toBeDefined();
  r.disconnect();
});
