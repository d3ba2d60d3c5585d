// The restore drill (docs/backup.md): a live stack's database is backed up
// with the library behind `npm run db:backup`, then lost (the deployables
// stopped, as an operator would, and the database dropped), restored from
// the file with the library behind `npm run db:restore`, and the stack
// started again. The buckets were never touched: the database alone is what
// makes their files a catalog again. Afterwards every table loads through the
// Iceberg REST catalog with the catalog credential issued before the loss
// (its hash survived), with vended credentials that write a further append
// (the sealed storage keys survived and open with the stack's data keys),
// every row reads back with icebird exactly as written, the admin's and the
// agent's API keys work, and the sink takes a send and rolls it.
import { dirname } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import { dropDatabase } from '@floe/db';
import { backupDatabase, restoreDatabase } from '../../scripts/lib/db-backup';
import { stopPid } from '../../scripts/lib/processes';
import { restartPrivateStack, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { stackPaths } from '../../scripts/lib/stack-env';
import { appendRows, type TableRef } from '../e2e/append-helpers';
import { readWithIcebird } from '../support/icebird';
import { stackKeyring } from '../support/keyring';
import { until } from '../support/poll';

// A quick roller, so a sink with inactivity_seconds 1 rolls within a second or two.
const SETTINGS = { FLOE_LOG_LEVEL: 'warn', FLOE_ROLLER_TICK_MS: '300' };

let stateFile: string;
let state: StackState;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('restore', SETTINGS));
  // appendRows reaches the catalog through the e2e helpers, which read the stack's record from here.
  process.env.FLOE_E2E_STATE = stateFile;
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

const api = () => request(state.base_url);
const bearer = (credential: string) => ({ Authorization: `Bearer ${credential}` });
const SCHEMA = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };

type Row = { id: number; msg: string };
const rows = (from: number, n: number, tag: string): Row[] => Array.from({ length: n }, (_, i) => ({ id: from + i, msg: `${tag} ${from + i}` }));
const sorted = (r: Row[]) => [...r].sort((a, b) => a.id - b.id);

async function catalogToken(clientId: string, clientSecret: string): Promise<string> {
  const res = await request(state.catalog_url).post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret });
  if (res.status !== 200) throw new Error(`token exchange: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

async function loadTable(warehouseId: string, token: string, table: string): Promise<{ metadataLocation: string; metadata: any }> {
  const res = await request(state.catalog_url).get(`/v1/${warehouseId}/namespaces/ev/tables/${table}`).set(bearer(token));
  expect(res.status).toBe(200);
  return { metadataLocation: res.body['metadata-location'], metadata: res.body.metadata };
}

async function readRows(bucket: string, metadata: any): Promise<Row[]> {
  return sorted((await readWithIcebird(state.s3_url, bucket, metadata)).map((r: any) => ({ id: Number(r.id), msg: r.msg })));
}

async function sendAndRoll(sink: { sink_id: string; send_key: string }, batch: Row[], key: string, batches: number, auth: Record<string, string>): Promise<void> {
  await request(state.ingest_url).post(`/v1/sinks/${sink.sink_id}`)
    .set({ Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': key }).send(JSON.stringify(batch)).expect(202);
  await until(`batch ${key} to roll`, async () => {
    const s = await api().get(`/v1/sinks/${sink.sink_id}`).set(auth);
    return s.body.received?.batches === batches && s.body.lag?.batches_waiting === 0 ? true : null;
  }, 60);
}

test('a database dropped and restored from its backup: every table, row, credential and sink works as before', async () => {
  // An organisation admin signs up: an account, its key, an organisation, a project and the catalog `lake`.
  const tag = Math.random().toString(16).slice(2, 8);
  const signup = await api().post('/v1/signup').send({ email: `restore-${tag}@example.com`, workspace: `restore-${tag}`, engine: 'duckdb', accept_terms: true });
  expect(signup.status).toBe(201);
  const adminKey: string = signup.body.api_key;
  const warehouseId: string = signup.body.warehouse_id;
  const orgId: string = signup.body.organization.org_id;
  const auth = bearer(adminKey);
  const { bucket } = (await api().get(`/v1/warehouses/${warehouseId}`).set(auth).expect(200)).body;
  for (const name of ['a', 'b']) {
    await api().post('/v1/tables').set(auth).send({ warehouse_id: warehouseId, namespace: 'ev', name, schema: SCHEMA }).expect(201);
  }

  // The catalog's read/write credential, as an engine is configured with it.
  const conn = await api().get('/v1/connection').query({ warehouse: warehouseId }).set(auth).expect(200);
  const { client_id: clientId, client_secret: clientSecret } = conn.body.catalog_credential;
  const before = await catalogToken(clientId, clientSecret);

  // Table a: two appends by an engine. Table b: a sink's roll.
  const a: TableRef = { warehouseId, bucket, token: before, namespace: 'ev', table: 'a' };
  const written: Record<'a' | 'b', Row[]> = { a: [...rows(0, 50, 'first'), ...rows(50, 25, 'second')], b: rows(1000, 40, 'sent') };
  await appendRows(a, written.a.slice(0, 50));
  await appendRows(a, written.a.slice(50));
  const sink = (await api().post('/v1/sinks').set(auth).send({ name: 's', table: 'ev.b', warehouse: warehouseId, inactivity_seconds: 1 }).expect(201)).body;
  await sendAndRoll(sink, written.b, 'before-backup', 1, auth);

  // An agent with write on the catalog.
  const agent = await api().post(`/v1/orgs/${orgId}/agents`).set(auth).send({ name: `etl-${tag}`, grants: [{ warehouse_id: warehouseId, level: 'write' }] });
  expect(agent.status).toBe(201);
  const agentKey: string = agent.body.api_key;

  const pointers = { a: (await loadTable(warehouseId, before, 'a')).metadataLocation, b: (await loadTable(warehouseId, before, 'b')).metadataLocation };
  expect(await readRows(bucket, (await loadTable(warehouseId, before, 'a')).metadata)).toEqual(sorted(written.a));

  // The backup, taken live. A restore is refused while the stack runs.
  const paths = stackPaths(dirname(stateFile));
  const backup = await backupDatabase({ databaseUrl: state.database_url, dataDir: paths.dataDir });
  expect(backup.file.startsWith(`${paths.dataDir}/backups/`)).toBe(true);
  expect(backup.bytes).toBeGreaterThan(10_000);
  const keyring = stackKeyring(state);
  await expect(restoreDatabase({ databaseUrl: state.database_url, file: backup.file, keyring, paths })).rejects.toThrow(/the stack is running/);

  // The loss: the operator stops the deployables, and the database is gone.
  await Promise.all(Object.values(state.services).map((s) => stopPid(s.pid)));
  await dropDatabase(state.database_url);
  const server = new pg.Pool({ connectionString: state.database_url.replace(/\/[^/]+$/, '/postgres'), max: 1 });
  const exists = async () => (await server.query('SELECT 1 FROM pg_database WHERE datname = $1', [backup.database])).rowCount;
  try {
    expect(await exists()).toBe(0);

    // The restore, then the stack started again on the same settings (and data keys).
    const restored = await restoreDatabase({ databaseUrl: state.database_url, file: backup.file, keyring, paths, force: true });
    expect(restored).toMatchObject({ database: backup.database, applied: [], sealed: { sealed: 0 } });
    expect(await exists()).toBe(1);
  } finally {
    await server.end();
  }
  state = await restartPrivateStack(stateFile, SETTINGS);

  // The catalog credential issued before the loss still exchanges for a token, and every table loads at the pointer it had.
  const after = await catalogToken(clientId, clientSecret);
  for (const t of ['a', 'b'] as const) expect((await loadTable(warehouseId, after, t)).metadataLocation).toBe(pointers[t]);
  for (const t of ['a', 'b'] as const) expect(await readRows(bucket, (await loadTable(warehouseId, after, t)).metadata)).toEqual(sorted(written[t]));

  // Vended credentials (the sealed storage keys, opened) write a further append.
  const third = rows(75, 10, 'after restore');
  await appendRows({ ...a, token: after }, third);
  expect(await readRows(bucket, (await loadTable(warehouseId, after, 'a')).metadata)).toEqual(sorted([...written.a, ...third]));

  // The admin's and the agent's API keys.
  for (const key of [adminKey, agentKey]) {
    const list = await api().get('/v1/warehouses').set(bearer(key));
    expect(list.status).toBe(200);
    expect(list.body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id)).toContain(warehouseId);
  }

  // The sink takes a send and rolls it on top of what it rolled before the loss.
  const more = rows(2000, 15, 'sent after');
  await sendAndRoll(sink, more, 'after-restore', 2, auth);
  expect(await readRows(bucket, (await loadTable(warehouseId, after, 'b')).metadata)).toEqual(sorted([...written.b, ...more]));
}, 240_000);
