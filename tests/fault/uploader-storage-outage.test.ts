// A storage outage while an uploader is created or revoked: 502
// storage_error and nothing half-made — no uploader row, no identity once the
// store is back; a revocation the store could not make leaves the uploader
// active and the retry revokes it. The outage is a second radosgw (same
// cluster, own port) that the private stack talks to and this test stops and
// starts, so nothing else loses its store.
import pg from 'pg';
import request from 'supertest';
import { freePort } from '../../scripts/lib/infra';
import { startShiftedRgw, stopShiftedRgw } from '../../scripts/lib/ceph';
import { startPrivateStack, stopPrivateStack } from '../../scripts/lib/private-stack';
import type { StackState } from '../../scripts/lib/stack';
import { adminStorage } from '../support/store';
import { orgAdminKey } from '../support/stack-org';

let port: number;
let stateFile: string;
let state: StackState;
const store = adminStorage();

beforeAll(async () => {
  port = await freePort();
  const endpoint = await startShiftedRgw(port, 0);
  ({ state, stateFile } = await startPrivateStack('uploader-outage', { FLOE_S3_URL: endpoint, FLOE_LOG_LEVEL: 'warn' }));
}, 120_000);

afterAll(async () => {
  if (stateFile) await stopPrivateStack(stateFile);
  await stopShiftedRgw(port).catch(() => undefined);
}, 120_000);

const usersOf = async (warehouseId: string) =>
  ((await store.admin.call<string[]>('GET', 'metadata/user', {}, 'list users')) ?? []).filter((u) => u.startsWith(`u-${warehouseId}-`));

test('storage_error on create leaves nothing; on revoke the uploader stays active and the retry revokes it', async () => {
  const key = `Bearer ${await orgAdminKey(state, 'uploader-outage')}`;
  const api = () => request(state.base_url);
  const project = await api().post('/v1/projects').set('Authorization', key).send({ name: 'outage' });
  const w = await api().post('/v1/warehouses').set('Authorization', key).send({ project_id: project.body.project_id, name: 'cams' });
  expect(w.status).toBe(201);
  const uploaders = `/v1/warehouses/${w.body.warehouse_id}/uploaders`;
  const pool = new pg.Pool({ connectionString: state.database_url, max: 1 });
  try {
    await stopShiftedRgw(port);
    const failed = await api().post(uploaders).set('Authorization', key).send({ name: 'cam' });
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'storage_error', request_id: failed.headers['x-request-id'] });
    expect((await pool.query(`SELECT id FROM uploaders WHERE warehouse_id = $1`, [w.body.warehouse_id])).rows).toEqual([]);
    await startShiftedRgw(port, 0);
    expect(await usersOf(w.body.warehouse_id)).toEqual([]);

    const made = await api().post(uploaders).set('Authorization', key).send({ name: 'cam' });
    expect(made.status).toBe(201);
    await stopShiftedRgw(port);
    const refused = await api().delete(`${uploaders}/cam`).set('Authorization', key);
    expect([refused.status, refused.body.error?.code]).toEqual([502, 'storage_error']);
    expect((await pool.query(`SELECT status FROM uploaders WHERE id = $1`, [made.body.uploader_id])).rows).toEqual([{ status: 'active' }]);
    await startShiftedRgw(port, 0);
    const revoked = await api().delete(`${uploaders}/cam`).set('Authorization', key);
    expect(revoked.body).toMatchObject({ status: 'revoked', revoked: true, storage: { access_key: 'deleted', user: 'deleted' } });
    expect(await usersOf(w.body.warehouse_id)).toEqual([]);
  } finally {
    await pool.end();
  }
}, 240_000);
