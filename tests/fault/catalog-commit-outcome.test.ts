// A commit whose pointer swap has an unknown outcome must never leave a table
// pointing at a missing file. The catalog writes the new metadata file, then
// swaps the pointer in Postgres; when the database connection dies during
// the swap, the catalog cannot know whether the swap landed, so it keeps the
// file and answers 500 CommitStateUnknownException, and the table is
// afterwards at the old or the new version — loadable either way.
//
// Three faults, against a private stack's real Postgres:
// - the backend is terminated (pg_terminate_backend) while the swap runs:
//   the swap is rolled back, the table stays at the old version;
// - the swap commits but its answer is lost on the way back (a TCP proxy
//   between a second catalog process and Postgres cuts the connection just
//   after the server answered), for one table and for a multi-table
//   transaction's COMMIT: the table is at the new version, whose file the
//   catalog kept;
// - a storm of commits while the catalog's backends are terminated over and
//   over: every answer is one the spec allows, and every table still loads.
import { spawn } from 'node:child_process';
import net from 'node:net';
import pg from 'pg';
import request from 'supertest';
import { freePort } from '../../scripts/lib/infra';
import { healthy, stopPid } from '../../scripts/lib/processes';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { ROOT } from '../../scripts/lib/stack-env';
import { until } from '../support/poll';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';

let stateFile: string;
let state: StackState;
let wh: TestWarehouse;
let token: string;
let pool: pg.Pool;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('commits', { FLOE_LOG_LEVEL: 'warn' }));
  wh = await createTestWarehouse(state);
  pool = new pg.Pool({ connectionString: state.database_url, max: 2, application_name: 'fault-test' });
  const t = await request(state.catalog_url).post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret });
  token = t.body.access_token;
  await api().post(`/v1/${wh.id}/namespaces`).set(auth()).send({ namespace: ['f'] }).expect(200);
}, 240_000);

afterAll(async () => {
  await pool?.end();
  if (wh) await removeTestWarehouse(wh);
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

const api = (url = state.catalog_url) => request(url);
const auth = () => ({ Authorization: `Bearer ${token}` });
const tablePath = (name: string) => `/v1/${wh.id}/namespaces/f/tables/${name}`;
const setProperty = (value: string) => ({ updates: [{ action: 'set-properties', updates: { v: value } }] });

async function createTable(name: string): Promise<void> {
  await api().post(`/v1/${wh.id}/namespaces/f/tables`).set(auth()).send({ name, schema }).expect(200);
}

/** The table as the healthy catalog loads it: it must load, whatever happened. */
async function load(name: string): Promise<{ location: string; v: string | undefined }> {
  const res = await api().get(tablePath(name)).set(auth());
  expect([name, res.status]).toEqual([name, 200]);
  return { location: res.body['metadata-location'], v: res.body.metadata.properties.v };
}

function expectUnknown(res: request.Response): void {
  expect(res.status).toBe(500);
  expect(res.body.error).toMatchObject({ type: 'CommitStateUnknownException', code: 500 });
}

test('a backend terminated during the swap: 500 CommitStateUnknownException, the table stays at the old version and loads', async () => {
  await createTable('slow_a');
  await api().post(tablePath('slow_a')).set(auth()).send(setProperty('1')).expect(200);
  // Hold the swap of this one table long enough to terminate it mid-statement.
  await pool.query(`CREATE FUNCTION fault_slow_swap() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.name LIKE 'slow%' THEN PERFORM pg_sleep(2); END IF; RETURN NEW; END $$`);
  await pool.query(`CREATE TRIGGER fault_slow_swap BEFORE UPDATE ON catalog_tables FOR EACH ROW EXECUTE FUNCTION fault_slow_swap()`);
  try {
    const commit = api().post(tablePath('slow_a')).set(auth()).send(setProperty('2')).then((r) => r);
    const pid = await until('the swap to be running', async () => {
      const { rows } = await pool.query(`SELECT pid FROM pg_stat_activity WHERE application_name = 'floe-catalog' AND wait_event = 'PgSleep' AND datname = current_database()`);
      return rows[0]?.pid ?? null;
    }, 10, 20);
    await pool.query('SELECT pg_terminate_backend($1)', [pid]);
    expectUnknown(await commit);
  } finally {
    await pool.query('DROP TRIGGER fault_slow_swap ON catalog_tables');
    await pool.query('DROP FUNCTION fault_slow_swap()');
  }
  expect((await load('slow_a')).v).toBe('1');
  // The catalog's pool recovers: the next commit lands.
  await api().post(tablePath('slow_a')).set(auth()).send(setProperty('3')).expect(200);
  expect((await load('slow_a')).v).toBe('3');
}, 60_000);

/**
 * A TCP proxy to Postgres that, once armed with a marker, forwards the
 * client's message holding it and then cuts the connection as soon as the
 * server answers: the statement ran (and, in autocommit, committed), but the
 * client never hears so.
 */
function cuttingProxy(): Promise<{ port: number; arm: (marker: string) => void; cuts: () => number; close: () => void }> {
  let armed: string | null = null;
  let cuts = 0;
  const server = net.createServer((client) => {
    const upstream = net.connect(5432, '127.0.0.1');
    let cutOnAnswer = false;
    client.on('data', (chunk) => {
      if (armed && chunk.includes(armed)) {
        armed = null;
        cutOnAnswer = true;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!cutOnAnswer) return void client.write(chunk);
      cuts += 1;
      client.destroy();
      upstream.destroy();
    });
    const end = () => { client.destroy(); upstream.destroy(); };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({
    port: (server.address() as net.AddressInfo).port,
    arm: (marker) => { armed = marker; },
    cuts: () => cuts,
    close: () => server.close(),
  })));
}

test('a swap that committed but whose answer was lost: 500 CommitStateUnknownException, and the table loads at the new version', async () => {
  const proxy = await cuttingProxy();
  const port = await freePort();
  const url = new URL(state.database_url);
  url.port = String(proxy.port);
  // A second catalog of the same stack, reaching Postgres through the proxy; tokens are for the stack's catalog_url, as its own.
  const child = spawn(process.execPath, ['--import', 'tsx', 'services/catalog/src/main.ts'], {
    cwd: ROOT, stdio: 'ignore',
    env: { ...process.env, ...joinPrivateStackEnv(state), DATABASE_URL: url.toString(), FLOE_CATALOG_PORT: String(port), FLOE_LOG_LEVEL: 'error' },
  });
  const viaProxy = `http://127.0.0.1:${port}`;
  try {
    await until('the second catalog', async () => ((await healthy(`${viaProxy}/healthz`)) ? true : null), 60, 200);
    for (const name of ['lost_a', 'lost_b', 'lost_c']) await createTable(name);
    const before = await load('lost_a');

    // One table: the compare-and-set statement itself.
    proxy.arm('catalog_swap_metadata');
    const one = await api(viaProxy).post(tablePath('lost_a')).set(auth()).send(setProperty('new'));
    expect(proxy.cuts()).toBe(1);
    expectUnknown(one);
    const after = await load('lost_a');
    expect(after.v).toBe('new');
    expect(after.location).not.toBe(before.location);

    // A multi-table transaction: its COMMIT.
    proxy.arm('COMMIT');
    const tx = await api(viaProxy).post(`/v1/${wh.id}/transactions/commit`).set(auth()).send({
      'table-changes': ['lost_b', 'lost_c'].map((name) => ({ identifier: { namespace: ['f'], name }, ...setProperty('tx') })),
    });
    expect(proxy.cuts()).toBe(2);
    expectUnknown(tx);
    expect((await load('lost_b')).v).toBe('tx');
    expect((await load('lost_c')).v).toBe('tx');

    // The second catalog carries on with a fresh connection.
    await api(viaProxy).post(tablePath('lost_a')).set(auth()).send(setProperty('later')).expect(200);
    expect((await load('lost_a')).v).toBe('later');
  } finally {
    await stopPid(child.pid!);
    proxy.close();
  }
}, 90_000);

test('commits under a storm of terminated backends: only answers the spec allows, and every table still loads', async () => {
  const names = ['storm_a', 'storm_b', 'storm_c', 'storm_d'];
  for (const name of names) await createTable(name);
  let storming = true;
  const storm = (async () => {
    while (storming) {
      // Only this stack's catalog (its own database): other stacks on the same Postgres run beside it.
      await pool.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'floe-catalog' AND datname = current_database()`).catch(() => undefined);
      // Every 40 ms: dense enough that commits meet terminated backends, sparse enough that some land on a loaded machine (at 15 ms a whole run of 100 once had none land).
      await new Promise((r) => setTimeout(r, 40));
    }
  })();
  const statuses = new Map<string, number>();
  try {
    await Promise.all(names.map(async (name) => {
      for (let i = 0; i < 25; i++) {
        const res = await api().post(tablePath(name)).set(auth()).send(setProperty(String(i)));
        const key = res.status === 200 ? '200' : `${res.status} ${res.body.error?.type}`;
        statuses.set(key, (statuses.get(key) ?? 0) + 1);
        expect([key, ['200', '409 CommitFailedException', '500 CommitStateUnknownException', '500 InternalServerError', '503 ServiceUnavailableException'].includes(key)]).toEqual([key, true]);
      }
    }));
  } finally {
    storming = false;
    await storm;
  }
  // Some commits met a terminated backend (the storm did something) and some landed.
  expect(statuses.get('200') ?? 0).toBeGreaterThan(0);
  expect([...statuses.keys()].some((k) => k !== '200')).toBe(true);
  for (const name of names) await load(name);
}, 120_000);
