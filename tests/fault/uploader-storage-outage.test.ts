// A storage outage while an uploader is created or revoked: 502
// storage_error and nothing half-made — no uploader row, no identity once the
// store is back; a revocation the store could not make leaves the uploader
// active and the retry revokes it. The outage is a second radosgw (same
// cluster, own port) that the private stack talks to and this test stops and
// starts, so nothing else loses its store.
import pg from 'pg';
import request from 'supertest';
import { outageStack } from '../support/outage-stack';
import { adminStorage } from '../support/store';
import { orgAdminKey } from '../support/stack-org';

const outage = outageStack('uploader-outage');
const store = adminStorage();

const usersOf = async (warehouseId: string) =>
  ((await store.admin.call<string[]>('GET', 'metadata/user', {}, 'list users')) ?? []).filter((u) => u.startsWith(`u-${warehouseId}-`));

test('storage_error on create leaves nothing; on revoke the uploader stays active and the retry revokes it', async () => {
  const state = outage.state();
  const key = `Bearer ${await orgAdminKey(state, 'uploader-outage')}`;
  const api = () => request(state.base_url);
  const project = await api().post('/v1/projects').set('Authorization', key).send({ name: 'outage' });
  const w = await api().post('/v1/warehouses').set('Authorization', key).send({ project_id: project.body.project_id, name: 'cams' });
  expect(w.status).toBe(201);
  const uploaders = `/v1/warehouses/${w.body.warehouse_id}/uploaders`;
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    await outage.stopStore();
    const failed = await api().post(uploaders).set('Authorization', key).send({ name: 'cam' });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'storage_error', request_id: failed.headers['x-request-id'] });
    expect((await pool.query(`SELECT id FROM uploaders WHERE warehouse_id = $1`, [w.body.warehouse_id])).rows).toEqual([]);
    await outage.startStore();
    expect(await usersOf(w.body.warehouse_id)).toEqual([]);

    const made = await api().post(uploaders).set('Authorization', key).send({ name: 'cam' });
    expect(made.status).toBe(201);
    await outage.stopStore();
    const refused = await api().delete(`${uploaders}/cam`).set('Authorization', key);
    expect([refused.status, refused.body.error?.code]).toEqual([502, 'storage_error']);
    expect((await pool.query(`SELECT status FROM uploaders WHERE id = $1`, [made.body.uploader_id])).rows).toEqual([{ status: 'active' }]);
    await outage.startStore();
    const revoked = await api().delete(`${uploaders}/cam`).set('Authorization', key);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked: true, storage: { access_key: 'deleted', user: 'deleted' } });
    expect(await usersOf(w.body.warehouse_id)).toEqual([]);
  } finally {
    await pool.end();
  }
}, 240_000);
