// bench/catalog: commit and load costs of the catalog, in one run on one
// private stack, beside the floor they stand on.
//   - commits/s across 100 tables with 16 concurrent clients (target ≥ 200 on 2 cores)
//   - p50/p99 of serial commits to one table (target: within 2× the floor)
//   - p50/p99 of loadTable (target: p50 < 5 ms)
//   - p50/p99 of table creates and of commits that move a table (set-location):
//     the two paths that check a new location against every other table's
//   - the floor: one PUT of a metadata-sized object to RGW plus one Postgres UPDATE transaction
//
// BENCH_CPU_PROF=<dir> writes a CPU profile of every deployable there.
import { randomBytes } from 'node:crypto';
import { Agent, request, setGlobalDispatcher } from 'undici';
import pg from 'pg';
import { cephInfo, ensureCeph } from '../../scripts/lib/ceph';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';

setGlobalDispatcher(new Agent({ keepAliveTimeout: 30_000, connections: 64 }));

const TABLES = 100;
const CLIENTS = 16;
const COMMITS_ACROSS = Number(process.env.BENCH_COMMITS ?? 1600);
const SERIAL = Number(process.env.BENCH_SERIAL ?? 200);
const LOADS = Number(process.env.BENCH_LOADS ?? 2000);

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))];
};
const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

await ensureCeph();
const ceph = cephInfo()!;
Object.assign(process.env, {
  FLOE_S3_URL: ceph.endpoint, FLOE_S3_REGION: ceph.region, FLOE_S3_ADMIN_ACCESS_KEY: ceph.accessKey, FLOE_S3_ADMIN_SECRET_KEY: ceph.secretKey,
});
const { adminStorage } = await import('../../tests/support/store');
const { createTestWarehouse, removeTestWarehouse } = await import('../../tests/support/warehouse');

const { state, stateFile } = await startPrivateStack('bench', { FLOE_LOG_LEVEL: 'warn', ...(process.env.BENCH_CPU_PROF ? { FLOE_NODE_FLAGS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {}) });
const wh = await createTestWarehouse(state);
try {
  const cat = state.catalog_url;
  const tokenRes = await fetch(`${cat}/v1/oauth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret }),
  });
  const token = ((await tokenRes.json()) as { access_token: string }).access_token;
  const headers = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  // undici's request, not fetch: the clients share the 2 cores with the catalog
  // and the store, and fetch's WHATWG machinery costs several times more CPU.
  const call = async (method: 'GET' | 'POST', path: string, body?: unknown) => {
    const r = await request(`${cat}/v1/${wh.id}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await r.body.text();
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${text.slice(0, 200)}`);
    return text;
  };
  const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'v', required: false, type: 'string' }] };
  await call('POST', '/namespaces', { namespace: ['bench'] });
  const creates: number[] = [];
  for (let i = 0; i < TABLES; i++) {
    const t = process.hrtime.bigint();
    await call('POST', '/namespaces/bench/tables', { name: `t${i}`, schema });
    creates.push(ms(t));
  }
  const commit = (table: string, round: number) => call('POST', `/namespaces/bench/tables/${table}`, { requirements: [], updates: [{ action: 'set-properties', updates: { round: String(round) } }] });

  // Warm-up: JIT, pools, the metadata cache.
  for (let i = 0; i < 50; i++) await commit(`t${i % TABLES}`, -1);

  // 1. Throughput across tables: each client owns its tables, so no commit loses a race.
  const t0 = process.hrtime.bigint();
  await Promise.all(Array.from({ length: CLIENTS }, async (_, c) => {
    const owned = Array.from({ length: TABLES }, (_, j) => j).filter((j) => j % CLIENTS === c);
    for (let k = 0; k < COMMITS_ACROSS / CLIENTS; k++) await commit(`t${owned[k % owned.length]}`, k);
  }));
  const acrossSeconds = ms(t0) / 1000;

  // 2. Serial commits to one table.
  const serial: number[] = [];
  for (let i = 0; i < SERIAL; i++) {
    const t = process.hrtime.bigint();
    await commit('t0', 10_000 + i);
    serial.push(ms(t));
  }

  // 3. loadTable.
  const loads: number[] = [];
  for (let i = 0; i < LOADS; i++) {
    const t = process.hrtime.bigint();
    await call('GET', `/namespaces/bench/tables/t${i % TABLES}`);
    loads.push(ms(t));
  }

  // 4. Commits that move a table: a new location each time, checked against the other 99 tables'.
  const moves: number[] = [];
  for (let i = 0; i < SERIAL; i++) {
    const t = process.hrtime.bigint();
    await call('POST', '/namespaces/bench/tables/t1', { requirements: [], updates: [{ action: 'set-location', location: `s3://${wh.tableBucket}/bench/moved/m${i}` }] });
    moves.push(ms(t));
  }

  // 5. The floor: what any commit must do at least — write a metadata-sized
  // object, then one UPDATE (its own transaction) — with the leanest clients:
  // the object client the catalog uses, and one pooled statement.
  const store = adminStorage().objectsAs(wh.storage);
  const body = randomBytes(1500).toString('base64');
  const pool = new pg.Pool({ connectionString: state.database_url, max: 2 });
  await pool.query('SELECT 1');
  const floor: number[] = [];
  for (let i = 0; i < SERIAL; i++) {
    const t = process.hrtime.bigint();
    await store.put(wh.tableBucket, `bench/floor/${i}.metadata.json`, body, { contentType: 'application/json', ifNoneMatch: '*' });
    await pool.query(`UPDATE catalog_tables SET updated_at = now() WHERE warehouse_id = $1 AND name = 't0'`, [wh.id]);
    floor.push(ms(t));
  }
  await pool.end();

  const fmt = (x: number) => x.toFixed(2).padStart(9);
  console.log(`\nbench/catalog — one run, ${TABLES} tables, loopback, this machine (${CLIENTS} clients for throughput)\n`);
  console.log(`${'measure'.padEnd(52)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
  console.log(`${'floor: PUT metadata-sized object + UPDATE txn'.padEnd(52)}${fmt(pct(floor, 50))}${fmt(pct(floor, 99))}`);
  console.log(`${'serial commit to one table'.padEnd(52)}${fmt(pct(serial, 50))}${fmt(pct(serial, 99))}`);
  console.log(`${'loadTable'.padEnd(52)}${fmt(pct(loads, 50))}${fmt(pct(loads, 99))}`);
  console.log(`${`create table (${TABLES} in one namespace)`.padEnd(52)}${fmt(pct(creates, 50))}${fmt(pct(creates, 99))}`);
  console.log(`${'commit moving a table (set-location)'.padEnd(52)}${fmt(pct(moves, 50))}${fmt(pct(moves, 99))}`);
  const rate = COMMITS_ACROSS / acrossSeconds;
  const ratio = pct(serial, 50) / pct(floor, 50);
  console.log(`\ncommits/s across ${TABLES} tables with ${CLIENTS} clients: ${rate.toFixed(0)} (target ≥ 200): ${rate >= 200 ? 'met' : 'NOT met'}`);
  console.log(`serial commit p50 / floor p50: ${ratio.toFixed(2)}× (target ≤ 2×): ${ratio <= 2 ? 'met' : 'NOT met'}`);
  console.log(`loadTable p50: ${pct(loads, 50).toFixed(2)} ms (target < 5 ms): ${pct(loads, 50) < 5 ? 'met' : 'NOT met'}`);
  console.log(`create p50 / floor p50: ${(pct(creates, 50) / pct(floor, 50)).toFixed(2)}×; moving commit p50 / floor p50: ${(pct(moves, 50) / pct(floor, 50)).toFixed(2)}×`);
  // The same commit but for the location it sets: what the location checks (lock and overlap query) add.
  console.log(`moving commit p50 / serial commit p50: ${(pct(moves, 50) / pct(serial, 50)).toFixed(2)}×`);
} finally {
  await removeTestWarehouse(wh);
  await stopPrivateStack(stateFile);
}
