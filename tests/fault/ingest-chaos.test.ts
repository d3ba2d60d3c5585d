// Kill during sends, on a stack with two of everything (private-stack.ts
// `replicas: 2`): while producers send batches through the ingest host's
// balancer as fast as they are answered, each of the two ingest gateways and
// each of the two rollers is killed (SIGKILL, no goodbye) at random moments of
// its work and started again, over and over, each on its own clock, so now one
// replica is down, now both. A producer whose send got no answer sends the
// same batch again, under the same batch id, as a sender should. When it is
// over, every row of every batch is in the table exactly once, and every
// misfit in exactly one reject file, counted once: the two rollers never roll
// a batch twice, nor the two gateways take one twice.
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import request from 'supertest';
import { stopPid } from '../../scripts/lib/processes';
import { freePort } from '../../scripts/lib/infra';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { blobReader } from '../support/blob-reader';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

let stateFile: string;
let state: StackState;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('chaos', { FLOE_LOG_LEVEL: 'warn' }, { replicas: 2 }));
  // This test runs its own ingest gateways and rollers, to kill them; the gateways on the ports the balancer sends to.
  for (const name of ['roller-worker', 'roller-worker-2', 'ingest-gateway', 'ingest-gateway-2']) await stopPid(state.services[name].pid);
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

const SECONDS = Number(process.env.CHAOS_SECONDS ?? 30);
const note = (m: string) => { if (process.env.CHAOS_DEBUG) process.stderr.write(`[chaos ${new Date().toISOString().slice(11, 23)}] ${m}\n`); };
const PRODUCERS = 4;
const ROWS = 300;

test(`two ingest gateways and two rollers killed again and again for ${SECONDS} s of sends: every row once, every misfit once`, async () => {
  const env = { ...process.env, ...joinPrivateStackEnv(state), FLOE_ROLLER_TICK_MS: '300', FLOE_LOG_LEVEL: 'warn' };
  // The first gateway's internal listener where the stack put it; the second's is called by nothing here.
  const internalPorts = [Number(new URL(state.ingest_internal_url!).port), await freePort()];
  const ingestPorts = ['ingest-gateway', 'ingest-gateway-2'].map((name) => Number(new URL(state.services[name].url).port));
  const gateway = (i: number) => startWorkerProcess('services/ingest-gateway/src/main.ts', 'FLOE_INGEST_PORT', { ...env, FLOE_INGEST_INTERNAL_PORT: String(internalPorts[i]) }, ingestPorts[i]);
  const roller = () => startWorkerProcess('services/roller-worker/src/main.ts', 'FLOE_ROLLER_HEALTH_PORT', env);

  const api = () => request(state.base_url);
  const auth = { Authorization: `Bearer ${await orgAdminKey(state, 'chaos')}` };
  const project = await api().post('/v1/projects').set(auth).send({ name: 'p-chaos' }).expect(201);
  const w = (await api().post('/v1/warehouses').set(auth).send({ project_id: project.body.project_id, name: 'lake_chaos' }).expect(201)).body;
  const schema = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };
  await api().post('/v1/tables').set(auth).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema }).expect(201);
  const sink = (await api().post('/v1/sinks').set(auth).send({ name: 's', table: 'ev.t', warehouse: w.warehouse_id, inactivity_seconds: 1 }).expect(201)).body;

  const gateways: WorkerProcess[] = [gateway(0), gateway(1)];
  const rollers: WorkerProcess[] = [roller(), roller()];
  const healthy = async (p: WorkerProcess) => until('the process to answer', async () => {
    try {
      return (await request(`http://127.0.0.1:${await p.port}`).get('/healthz').timeout(1000)).status === 200 ? true : null;
    } catch {
      return null;
    }
  }, 90, 50); // a loaded machine (two fault tests at once) can take half a minute to start a process

  // The killers, one per process: each lets its process come up, then kills it at a random moment of its work
  // and starts a new one at once: a gateway within 0.2-1.5 s (a send in flight, most likely), a roller within
  // 3-8 s (a killed roller's jobs stay locked for up to 8 s, so rolls happen between its deaths, and some die).
  let sending = true;
  let kills = 0;
  let next = 0;
  let retries = 0;
  const killer = (current: () => WorkerProcess, replace: () => void, [least, most]: [number, number]) => (async () => {
    while (sending) {
      await healthy(current());
      await new Promise((resolve) => setTimeout(resolve, least + Math.random() * (most - least)));
      if (!sending) break;
      const p = current();
      process.kill(p.pid, 'SIGKILL');
      await p.exited;
      replace();
      kills++;
      note(`kill ${kills}, batches ${next}, retries ${retries}`);
    }
  })();
  const killers = [
    ...[0, 1].map((i) => killer(() => gateways[i], () => { gateways[i] = gateway(i); }, [200, 1500])),
    ...[0, 1].map((i) => killer(() => rollers[i], () => { rollers[i] = roller(); }, [3000, 8000])),
  ];

  // The producers: batch k holds ids k*ROWS .. k*ROWS+ROWS-1 and one misfit; a send with no answer (or a 5xx) is sent again, same id.
  const started = Date.now();
  const until0 = started + SECONDS * 1000;
  // At least MIN_KILLS deaths, however slowly a loaded machine restarts the processes: the sends go on past
  // SECONDS until the killers have had them (for at most three times as long).
  const MIN_KILLS = 12;
  const cap = started + 3 * SECONDS * 1000;
  const sendingOn = () => Date.now() < until0 || (kills < MIN_KILLS && Date.now() < cap);
  const sendOnce = async (k: number): Promise<void> => {
    const rows = [...Array.from({ length: ROWS }, (_, i) => ({ id: k * ROWS + i, msg: `b${k} r${i}` })), { id: `bad-${k}` }];
    for (;;) {
      try {
        const res = await request(state.ingest_url).post(`/v1/sinks/${sink.sink_id}`).timeout(10_000)
          .set({ Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `b${k}` }).send(JSON.stringify(rows));
        if (res.status === 202 || res.status === 200) return;
        if (res.status < 500) throw new Error(`send b${k}: ${res.status} ${JSON.stringify(res.body)}`);
      } catch (err) {
        if ((err as Error).message.startsWith(`send b${k}`)) throw err;
      }
      retries++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  // In waves: 2 s of sends, then 1.5 s of quiet, so the sink (inactivity_seconds 1) rolls between them while the killers work.
  await Promise.all(Array.from({ length: PRODUCERS }, async () => {
    while (sendingOn()) {
      if ((Date.now() - started) % 3500 < 2000) await sendOnce(next++);
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }));
  sending = false;
  note('sends done');
  await Promise.all(killers);
  note('killer done');
  const batches = next;
  expect(kills).toBeGreaterThanOrEqual(MIN_KILLS);

  try {
    const done = await until('every batch to roll', async () => {
      const s = await api().get(`/v1/sinks/${sink.sink_id}`).set(auth);
      note(`waiting ${JSON.stringify(s.body.lag)} received ${s.body.received?.batches}/${batches}`);
      return s.body.lag.batches_waiting === 0 && s.body.received.batches === batches ? s.body : null;
    }, 120, 500);
    expect(done.received).toMatchObject({ batches, rows: batches * (ROWS + 1) });
    expect(done.rejects.rows).toBe(batches);

    // Every misfit in exactly one reject file.
    const s3 = await blobReader(state, w.warehouse_id);
    const raws: string[] = [];
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: w.blob_bucket, Prefix: done.rejects.prefix }));
    for (const o of listed.Contents ?? []) {
      const text = await (await s3.send(new GetObjectCommand({ Bucket: w.blob_bucket, Key: o.Key! }))).Body!.transformToString();
      raws.push(...text.trim().split('\n').map((l) => JSON.parse(l).raw));
    }
    expect(raws.sort()).toEqual(Array.from({ length: batches }, (_, k) => `{"id":"bad-${k}"}`).sort());

    // Every row exactly once, read by icebird through the table's metadata (files a killed roll left behind are not in it).
    const table = await api().get('/v1/table').query({ warehouse: w.warehouse_id, namespace: 'ev', name: 't' }).set(auth);
    expect(table.body).toMatchObject({ rows: batches * ROWS, rows_source: 'snapshot_summary' });
    const conn = await api().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(auth).expect(200);
    const tokenRes = await request(state.catalog_url).post('/v1/oauth/tokens').type('form')
      .send({ grant_type: 'client_credentials', client_id: conn.body.catalog_credential.client_id, client_secret: conn.body.catalog_credential.client_secret }).expect(200);
    const loaded = await request(state.catalog_url).get(`/v1/${w.warehouse_id}/namespaces/ev/tables/t`).set({ Authorization: `Bearer ${tokenRes.body.access_token}` }).expect(200);
    const ids = (await readWithIcebird(state.s3_url, w.bucket, loaded.body.metadata)).map((row: any) => Number(row.id));
    expect(ids.length).toBe(batches * ROWS);
    expect(new Set(ids).size).toBe(batches * ROWS);
    // Printed for the record (issue 30's rerun of this chaos): how hard it was.
    console.log(`chaos (two replicas): ${batches} batches by ${PRODUCERS} producers in ${SECONDS} s, ${kills} kills, ${retries} sends again, ${table.body.snapshots} rolls`);
  } finally {
    await Promise.all([...gateways, ...rollers].map((p) => p.stop()));
  }
}, 240_000);
