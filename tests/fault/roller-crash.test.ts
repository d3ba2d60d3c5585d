// The roller dies at each stage of a roll — after writing the data file,
// right after the commit, and after the reject file just before the batches
// are marked — and a fresh roller finishes the work: every row lands exactly
// once and every misfit is in exactly one reject file, counted once.
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import request from 'supertest';
import { stopPid } from '../../scripts/lib/processes';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { blobReader } from '../support/blob-reader';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

let stateFile: string;
let state: StackState;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('roller', { FLOE_LOG_LEVEL: 'warn' }));
  // This test runs its own rollers.
  await stopPid(state.services['roller-worker'].pid);
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

/** Runs a roller against the private stack; resolves with its exit code once it stops. */
function roller(crashAt?: Stage): WorkerProcess {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ...joinPrivateStackEnv(state),
    FLOE_ROLLER_TICK_MS: '300',
    FLOE_LOG_LEVEL: 'warn',
    ...(crashAt ? { FLOE_ROLLER_CRASH_AT: crashAt } : {}),
  };
  return startRoller(env);
}

function startRoller(env: NodeJS.ProcessEnv): WorkerProcess {
  return startWorkerProcess('services/roller-worker/src/main.ts', 'FLOE_ROLLER_HEALTH_PORT', env);
}

const api = () => request(state.base_url);

type Stage = 'after_files' | 'after_commit' | 'before_mark';

test.each(['after_files', 'after_commit', 'before_mark'] as const)('a roller killed %s: the next roller lands every row exactly once', async (stage) => {
  const key = await orgAdminKey(state, 'roller');
  const auth = { Authorization: `Bearer ${key}` };
  const project = await api().post('/v1/projects').set(auth).send({ name: `p-${stage}` });
  if (project.status !== 201) throw new Error(`project: ${project.status} ${JSON.stringify(project.body)}`);
  const w = await api().post('/v1/warehouses').set(auth).send({ project_id: project.body.project_id, name: `lake_${stage}` });
  expect(w.status).toBe(201);
  await api().post('/v1/tables').set(auth).send({ warehouse_id: w.body.warehouse_id, namespace: 'ev', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] } }).expect(201);
  const sink = (await api().post('/v1/sinks').set(auth).send({ name: 's', table: 'ev.t', warehouse: w.body.warehouse_id, inactivity_seconds: 1 })).body;
  for (let b = 0; b < 5; b++) {
    // Each batch carries one row the schema refuses.
    const rows = [...Array.from({ length: 100 }, (_, i) => ({ id: b * 100 + i })), { id: `bad-${b}` }];
    await api().post(`/v1/sinks/${sink.sink_id}`).set({ Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': `b${b}` }).send(JSON.stringify(rows)).expect(202);
  }

  const crashing = roller(stage);
  expect(await crashing.exited).toBe(86);
  const table = () => api().get('/v1/table').query({ warehouse: w.body.warehouse_id, namespace: 'ev', name: 't' }).set(auth);
  const mid = await table();
  expect(mid.body.rows).toBe(stage === 'after_files' ? 0 : 500);
  expect((await api().get(`/v1/sinks/${sink.sink_id}`).set(auth)).body.lag.batches_waiting).toBe(5);

  const healthy = roller();
  try {
    const done = await until('the batches to be marked', async () => {
      const s = await api().get(`/v1/sinks/${sink.sink_id}`).set(auth);
      return s.body.lag.batches_waiting === 0 ? s.body : null;
    }, 90);
    expect(done.received).toMatchObject({ batches: 5, rows: 505 });
    expect(done.rejects).toMatchObject({ rows: 5, files: 1 });
    const s3 = await blobReader(state, w.body.warehouse_id);
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: w.body.blob_bucket, Prefix: done.rejects.prefix }));
    expect(listed.Contents).toHaveLength(1);
    const text = await (await s3.send(new GetObjectCommand({ Bucket: w.body.blob_bucket, Key: listed.Contents![0].Key! }))).Body!.transformToString();
    expect(text.trim().split('\n').map((l) => JSON.parse(l).raw).sort()).toEqual([0, 1, 2, 3, 4].map((b) => `{"id":"bad-${b}"}`));
    const final = await table();
    expect(final.body).toMatchObject({ rows: 500, rows_source: 'snapshot_summary', snapshots: 1 });
  } finally {
    await healthy.stop();
  }
}, 120_000);
