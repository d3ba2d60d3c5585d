import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { appendRows, type TableRef } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, sql } from './helpers';
import { newCatalogOf, type Served } from '../support/oauth';
import { accessFor, clientDocuments, mcpClient, personWithSession, refusedWith, type Access, type Person } from '../support/mcp';

// The MCP tool `query` through the public gateway with the SDK's own client:
// listed for a read-scoped connection with its schemas, its rows exact (as
// structured content, and a short table as text) at the current and an older
// snapshot, and the route's refusals as tool errors with a remedy: a
// statement that is not read-only, a catalog not granted, a table or a
// snapshot that is not there.

const schema = {
  type: 'struct',
  fields: [
    { id: 1, name: 'id', required: true, type: 'long' },
    { id: 2, name: 'city', required: false, type: 'string' },
    { id: 3, name: 'visits', required: false, type: 'int' },
  ],
};

let docs: Served;
let person: Person;
let stranger: Person;
/** A catalog of `person`'s organisation the connection is not granted, holding a table of the same name. */
let hidden: string;
let reader: Access;
let r: Client;
/** The snapshot of the first append, and of the second. */
let first: bigint;
let second: bigint;

async function newTable(warehouseId: string): Promise<void> {
  const made = await gateway().post('/v1/tables').set(bearer(person.access)).send({ warehouse_id: warehouseId, namespace: 'q', name: 'visits', schema });
  expect(made.status).toBe(201);
}

/** An engine's write access to `warehouseId`'s table q.visits: the catalog credential of the connection recipe, exchanged for a token. */
async function tableRef(warehouseId: string): Promise<TableRef> {
  const conn = await gateway().get('/v1/connection').query({ warehouse: warehouseId, level: 'write' }).set(bearer(person.access));
  expect(conn.status).toBe(200);
  const listed = await gateway().get('/v1/warehouses').set(bearer(person.access));
  const bucket = listed.body.warehouses.find((w: { warehouse_id: string }) => w.warehouse_id === warehouseId).bucket as string;
  const c = conn.body.catalog_credential;
  return { warehouseId, bucket, token: await token(c.client_id, c.client_secret), namespace: 'q', table: 'visits' };
}

/** The tool's answer: its structured content, its text, and whether it is an error. */
async function query(args: Record<string, unknown>): Promise<{ isError: boolean; data: any; text: string }> {
  const res = (await r.callTool({ name: 'query', arguments: { catalog: 'lake', ...args } })) as CallToolResult;
  return { isError: Boolean(res.isError), data: res.structuredContent, text: res.content.map((c) => (c.type === 'text' ? c.text : '')).join('') };
}

beforeAll(async () => {
  docs = await clientDocuments();
  [person, stranger] = await Promise.all([personWithSession(), personWithSession()]);
  hidden = await newCatalogOf(person, 'hidden');
  await Promise.all([newTable(person.lake), newTable(hidden)]);
  const ref = await tableRef(person.lake);
  first = (await appendRows(ref, [{ id: 1n, city: 'Lisbon', visits: 3 }, { id: 2n, city: 'Porto', visits: 5 }])).snapshotId;
  second = (await appendRows(ref, [{ id: 3n, city: null, visits: 7 }])).snapshotId;
  await appendRows(await tableRef(hidden), [{ id: 9n, city: 'Hidden', visits: 1 }]);
  // Granted write on lake, but consented with the read scope only: every level capped at read.
  reader = await accessFor(person, `${docs.base}/client-mcp-query-reader.json`, [{ warehouse_id: person.lake, level: 'write' }], 'catalogs:read');
  r = await mcpClient(reader.access_token);
}, 120_000);
afterAll(async () => {
  await r?.close();
  await new Promise((done) => docs.server.close(done));
});

test('a read-scoped connection lists query as a read-only tool with its input and output schemas and the words an assistant needs', async () => {
  const listed = (await r.listTools()).tools.find((t) => t.name === 'query');
  expect(listed).toBeDefined();
  const t = listed!;
  expect(t.annotations?.readOnlyHint).toBe(true);
  expect(t.inputSchema.required).toEqual(['catalog', 'sql']);
  expect(t.inputSchema.properties).toMatchObject({
    catalog: { type: 'string', minLength: 1 },
    sql: { type: 'string', minLength: 1, maxLength: 100_000 },
    snapshot_id: { type: 'string', pattern: '^-?\\d{1,20}$' },
    as_of: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'integer', minimum: 0 }] },
    limit: { type: 'integer', minimum: 1, maximum: 2000 },
  });
  expect(Object.keys(t.inputSchema.properties!).sort()).toEqual(['as_of', 'catalog', 'limit', 'snapshot_id', 'sql']);
  expect(t.outputSchema?.required).toEqual(expect.arrayContaining(['catalog', 'warehouse_id', 'columns', 'rows', 'row_count', 'truncated', 'snapshot_ids']));
  for (const words of ['namespace.table', 'list_tables', 'one read-only SQL SELECT', '20 seconds', '2,000 rows', 'COPY']) expect(t.description).toContain(words);
});

test('the rows, exact, as structured content and as a short table; the snapshot read named', async () => {
  const res = await query({ sql: 'SELECT id, city, visits FROM q.visits ORDER BY id' });
  expect(res.isError).toBe(false);
  expect(res.data).toMatchObject({
    catalog: 'lake', warehouse_id: person.lake,
    columns: [{ name: 'id', type: 'BIGINT' }, { name: 'city', type: 'VARCHAR' }, { name: 'visits', type: 'INTEGER' }],
    rows: [{ id: '1', city: 'Lisbon', visits: 3 }, { id: '2', city: 'Porto', visits: 5 }, { id: '3', city: null, visits: 7 }],
    row_count: 3, truncated: false, limit: 2000, snapshot_ids: { 'q.visits': String(second) }, files_scanned: 2,
  });
  expect(res.data.bytes_scanned).toBeGreaterThan(0);
  const lines = res.text.split('\n');
  expect(lines[0]).toMatch(new RegExp(`^3 row\\(s\\) of 3 column\\(s\\) from catalog lake, reading q\\.visits at snapshot ${second} \\(2 file\\(s\\), \\d+ bytes scanned, \\d+ ms\\)\\.$`));
  expect(lines.slice(1)).toEqual(['| id | city | visits |', '| --- | --- | --- |', '| 1 | Lisbon | 3 |', '| 2 | Porto | 5 |', '| 3 | NULL | 7 |']);
});

test('an aggregate, a limit that cuts the rows (truncated, said in the text), and an older snapshot by its id', async () => {
  const agg = await query({ sql: 'SELECT count(*) AS n, sum(visits) AS total, max(city) AS last FROM q.visits' });
  expect(agg.data.rows).toEqual([{ n: '3', total: '15', last: 'Porto' }]);

  const cut = await query({ sql: 'SELECT id FROM q.visits ORDER BY id', limit: 2 });
  expect(cut.data).toMatchObject({ rows: [{ id: '1' }, { id: '2' }], row_count: 2, truncated: true, limit: 2 });
  expect(cut.text.split('\n').at(-1)).toMatch(/^More rows matched than came back \(the limit of 2 rows, or \d+ bytes of rows\): aggregate or filter in SQL to see the rest\.$/);

  const older = await query({ sql: 'SELECT id, city FROM q.visits ORDER BY id', snapshot_id: String(first) });
  expect(older.data).toMatchObject({ rows: [{ id: '1', city: 'Lisbon' }, { id: '2', city: 'Porto' }], snapshot_ids: { 'q.visits': String(first) } });
});

test('a statement that is not one read-only SELECT: invalid_value on sql, with the tool\'s remedy', async () => {
  for (const statement of ["COPY (SELECT * FROM q.visits) TO '/tmp/floe-mcp-query.csv'", 'SELECT 1; SELECT 2']) {
    const e = await refusedWith(r, 'query', { catalog: 'lake', sql: statement }, 'invalid_value');
    expect(e).toMatchObject({ status: 400, field: 'sql', remedy: expect.stringContaining('one read-only SELECT naming tables as namespace.table') });
  }
});

test('a table or a snapshot that is not there: not_found, with the tool\'s remedy naming list_tables', async () => {
  const e = await refusedWith(r, 'query', { catalog: 'lake', sql: 'SELECT * FROM q.nothing_here' }, 'not_found');
  expect(e).toMatchObject({ status: 404, table: 'q.nothing_here', remedy: expect.stringContaining('call list_tables') });
  await refusedWith(r, 'query', { catalog: 'lake', sql: 'SELECT * FROM nowhere.visits' }, 'not_found');
  const s = await refusedWith(r, 'query', { catalog: 'lake', sql: 'SELECT * FROM q.visits', snapshot_id: '12345' }, 'not_found');
  expect(s).toMatchObject({ status: 404, snapshot_id: '12345' });
});

test('a catalog the connection was not granted, of its organisation or another: warehouse_not_found, nothing of it read', async () => {
  for (const catalog of ['hidden', hidden, stranger.lake]) {
    const e = await refusedWith(r, 'query', { catalog, sql: 'SELECT * FROM q.visits' }, 'warehouse_not_found');
    expect(e.status).toBe(404);
    expect(JSON.stringify(e)).not.toContain('Hidden');
  }
});

test('each call is one mcp.tool_call event with its outcome; never the statement', async () => {
  const rows = await sql(`SELECT data FROM audit_events WHERE action = 'mcp.tool_call' AND actor_id = $1 AND data->>'tool' = 'query'`, [reader.agentId]);
  const outcomes = rows.map((x) => x.data.outcome);
  expect(outcomes).toEqual(expect.arrayContaining(['ok', 'invalid_value', 'not_found', 'warehouse_not_found']));
  expect(JSON.stringify(rows)).not.toContain('q.visits');
});
