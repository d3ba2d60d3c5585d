// The teardown worker dies in the middle of a catalog's teardown — once the
// tables are dropped, and once the identities are removed but the role and
// the buckets are not — and a fresh worker finishes the job from the step the
// dead one recorded: nothing of the catalog is left on the store, the
// tombstone is complete and `warehouse.delete_complete` is audited once.
import { GetRoleCommand } from '@aws-sdk/client-iam';
import pg from 'pg';
import request from 'supertest';
import { stopPid } from '../../scripts/lib/processes';
import { joinPrivateStackEnv, startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { until } from '../support/poll';
import { orgAdminKey } from '../support/stack-org';
import { adminStorage } from '../support/store';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

let stateFile: string;
let state: StackState;

beforeAll(async () => {
  ({ state, stateFile } = await startPrivateStack('teardown', { FLOE_LOG_LEVEL: 'warn', FLOE_WAREHOUSE_DELETE_GRACE_SECONDS: '1' }));
  // This test runs its own teardown workers.
  await stopPid(state.services['teardown-worker'].pid);
}, 240_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
}, 120_000);

type Stage = 'after_tables' | 'after_identities';

/** A teardown worker against the private stack; resolves with its exit code once it stops. */
function teardownWorker(crashAt?: Stage): WorkerProcess {
  return startWorkerProcess('services/teardown-worker/src/main.ts', 'FLOE_TEARDOWN_HEALTH_PORT', {
    ...process.env, ...joinPrivateStackEnv(state), FLOE_LOG_LEVEL: 'warn', FLOE_WAREHOUSE_DELETE_GRACE_SECONDS: '1',
    ...(crashAt ? { FLOE_TEARDOWN_CRASH_AT: crashAt } : {}),
  });
}

const api = () => request(state.base_url);

async function row(id: string) {
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    return (await pool.query(`SELECT status, teardown_step, tombstone, storage_uid, storage_ro_uid, role_name FROM warehouses WHERE id = $1`, [id])).rows[0];
  } finally {
    await pool.end();
  }
}

async function completions(id: string): Promise<number> {
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    return Number((await pool.query(`SELECT count(*) AS n FROM audit_events WHERE action = 'warehouse.delete_complete' AND target_id = $1`, [id])).rows[0].n);
  } finally {
    await pool.end();
  }
}

test.each(['after_tables', 'after_identities'] as const)('a teardown worker killed %s: the next one finishes the teardown', async (stage) => {
  const key = await orgAdminKey(state, 'teardown');
  const auth = { Authorization: `Bearer ${key}` };
  const project = await api().post('/v1/projects').set(auth).send({ name: `p-${stage}` });
  const w = (await api().post('/v1/warehouses').set(auth).send({ project_id: project.body.project_id, name: `lake_${stage}` }).expect(201)).body;
  await api().post('/v1/tables').set(auth).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] } }).expect(201);
  const before = await row(w.warehouse_id);
  await api().delete(`/v1/warehouses/${w.warehouse_id}`).set(auth).send({ confirm: w.name }).expect(202);

  // The first worker dies at the stage, mid-job, having recorded how far it got.
  const crashing = teardownWorker(stage);
  expect(await crashing.exited).toBe(86);
  const mid = await row(w.warehouse_id);
  expect(mid.status).toBe('deleting');
  expect(mid.teardown_step).toBe('storage');
  expect(mid.tombstone.tables_dropped).toBe(1);
  expect(Object.keys(mid.tombstone.storage ?? {}).sort()).toEqual(stage === 'after_tables' ? [] : ['identity', 'identity_ro', 'uploaders']);
  const store = adminStorage();
  expect(await store.bucketExists(w.bucket)).toBe(true);

  // A fresh worker takes the stalled job over and finishes from there.
  const healthy = teardownWorker();
  try {
    const tomb = await until('the teardown to finish', async () => {
      const r = await api().get(`/v1/warehouses/${w.warehouse_id}`).set(auth);
      return r.body?.error?.code === 'warehouse_deleted' ? r.body.error : null;
    }, 90, 500);
    expect(tomb).toMatchObject({ state: 'deleted', tables_dropped: 1, storage_complete: true, storage: expect.objectContaining({ step: 'done', role: 'deleted' }) });
    // Steps the dead worker had done are not done twice: the identities it removed stay recorded as it removed them.
    if (stage === 'after_identities') expect(tomb.storage).toMatchObject({ identity: mid.tombstone.storage.identity });
    expect(await store.bucketExists(w.bucket)).toBe(false);
    expect(await store.bucketExists(w.blob_bucket)).toBe(false);
    for (const uid of [before.storage_uid, before.storage_ro_uid]) expect(await store.admin.call('GET', 'user', { uid }, 'get identity')).toBeNull();
    expect(await store.iam.send(new GetRoleCommand({ RoleName: before.role_name })).then(() => 200, (e) => e.$metadata?.httpStatusCode)).toBe(404);
    expect(await completions(w.warehouse_id)).toBe(1);
  } finally {
    await healthy.stop();
  }
}, 150_000);
