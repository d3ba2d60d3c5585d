// A storage outage while a catalog is being created: 502 storage_error, a
// `creating` row that no list shows, nothing a retry cannot finish; the retry
// with the same Idempotency-Key, once the store is back, finishes the same
// catalog. The outage is a second radosgw (same cluster, own port) that the
// private stack talks to and this test stops and starts, so nothing else
// loses its store.
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import request from 'supertest';
import { outageStack } from '../support/outage-stack';
import { adminStorage } from '../support/store';
import { orgAdminKey } from '../support/stack-org';

const outage = outageStack('outage');
const store = adminStorage();
let buckets: string[] = [];
let warehouseId: string | null = null;

afterAll(async () => {
  for (const b of buckets) await store.removeBucket(b).catch(() => undefined);
  if (warehouseId) {
    for (const uid of [`t-${warehouseId}`, `t-${warehouseId}-ro`]) await store.deleteIdentity(uid).catch(() => undefined);
    await store.deleteRole(`w-${warehouseId}`).catch(() => undefined);
  }
}, 120_000);

test('storage_error during creation leaves a resumable catalog; the same-key retry finishes it once the store is back', async () => {
  const state = outage.state();
  const key = await orgAdminKey(state, 'outage');
  const api = () => request(state.base_url);
  const project = await api().post('/v1/projects').set('Authorization', `Bearer ${key}`).send({ name: 'outage' });
  expect(project.status).toBe(201);
  const idem = `create-${randomBytes(4).toString('hex')}`;
  const body = { project_id: project.body.project_id, name: 'during_outage' };

  await outage.stopStore();
  const failed = await api().post('/v1/warehouses').set('Authorization', `Bearer ${key}`).set('Idempotency-Key', idem).send(body);
  expect(failed.status).toBe(502);
  expect(failed.body.error).toMatchObject({ code: 'storage_error', retry_after_seconds: 5, request_id: failed.headers['x-request-id'] });

  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  let creatingId: string;
  try {
    const { rows } = await pool.query(`SELECT id, status, table_bucket, blob_bucket FROM warehouses WHERE name = 'during_outage'`);
    expect(rows).toHaveLength(1);
    expect(rows[0].status).toBe('creating');
    creatingId = rows[0].id;
    warehouseId = creatingId;
    buckets = [rows[0].table_bucket, rows[0].blob_bucket];
  } finally {
    await pool.end();
  }
  const listed = await api().get('/v1/warehouses').set('Authorization', `Bearer ${key}`);
  expect(listed.body.warehouses).toEqual([]);

  await outage.startStore();
  const retried = await api().post('/v1/warehouses').set('Authorization', `Bearer ${key}`).set('Idempotency-Key', idem).send(body);
  expect(retried.status).toBe(201);
  expect(retried.body).toMatchObject({ warehouse_id: creatingId, status: 'ready', storage_probe: { table: 'ok', blob: 'ok' } });
  for (const b of buckets) expect(await store.bucketExists(b)).toBe(true);
  const replay = await api().post('/v1/warehouses').set('Authorization', `Bearer ${key}`).set('Idempotency-Key', idem).send(body);
  expect(replay.status).toBe(201);
  expect(replay.body).toEqual(retried.body);
  const after = await api().get('/v1/warehouses').set('Authorization', `Bearer ${key}`);
  expect(after.body.warehouses.map((w: { warehouse_id: string; status: string }) => [w.warehouse_id, w.status])).toEqual([[creatingId, 'ready']]);
});
