import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Views: create, list, load, exists, replace (with requirements), rename, drop, register-view.

let wh: TestWarehouse;
let rw: string;
let ro: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
const version = (sql: string, id = 1) => ({
  'version-id': id, 'timestamp-ms': Date.now(), 'schema-id': 0, summary: { 'engine-name': 'test' },
  representations: [{ type: 'sql', sql, dialect: 'spark' }], 'default-namespace': ['v'],
});
const views = () => `/v1/${wh.id}/namespaces/v/views`;

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  ro = await token(wh.ro.clientId, wh.ro.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['v'] }).expect(200);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['w'] }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

test('create, list, load, exists, replace, rename, drop', async () => {
  const created = await catalog().post(views()).set(bearer(rw)).send({ name: 'recent', schema, 'view-version': version('SELECT 1'), properties: {} });
  expect(created.status).toBe(200);
  expect(created.body['metadata-location']).toMatch(/\/metadata\/00000-[0-9a-f-]{36}\.metadata\.json$/);
  expect(created.body.metadata['current-version-id']).toBe(1);
  expect((await catalog().get(views()).set(bearer(ro))).body.identifiers).toEqual([{ namespace: ['v'], name: 'recent' }]);
  expect((await catalog().head(`${views()}/recent`).set(bearer(ro))).status).toBe(204);
  expect((await catalog().get(`${views()}/recent`).set(bearer(ro))).body.metadata['view-uuid']).toBe(created.body.metadata['view-uuid']);

  const replaced = await catalog().post(`${views()}/recent`).set(bearer(rw)).send({
    requirements: [{ type: 'assert-view-uuid', uuid: created.body.metadata['view-uuid'] }],
    updates: [{ action: 'add-view-version', 'view-version': version('SELECT 2', 2) }, { action: 'set-current-view-version', 'view-version-id': -1 }],
  });
  expect(replaced.status).toBe(200);
  expect(replaced.body.metadata['current-version-id']).toBe(2);
  expect(replaced.body['metadata-location']).toMatch(/\/metadata\/00001-/);

  expect((await catalog().post(`/v1/${wh.id}/views/rename`).set(bearer(rw)).send({ source: { namespace: ['v'], name: 'recent' }, destination: { namespace: ['w'], name: 'latest' } })).status).toBe(204);
  expect((await catalog().head(`${views()}/recent`).set(bearer(rw))).status).toBe(404);
  expect((await catalog().delete(`/v1/${wh.id}/namespaces/w/views/latest`).set(bearer(rw))).status).toBe(204);
  icebergError(await catalog().get(`/v1/${wh.id}/namespaces/w/views/latest`).set(bearer(rw)), 404, 'NoSuchViewException');
});

test('refusals: a table of the same name, a failed requirement, a read-only writer, an unknown namespace', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces/v/tables`).set(bearer(rw)).send({ name: 'taken', schema }).expect(200);
  icebergError(await catalog().post(views()).set(bearer(rw)).send({ name: 'taken', schema, 'view-version': version('SELECT 1'), properties: {} }), 409, 'AlreadyExistsException');
  await catalog().post(views()).set(bearer(rw)).send({ name: 'guarded', schema, 'view-version': version('SELECT 1'), properties: {} }).expect(200);
  icebergError(await catalog().post(`${views()}/guarded`).set(bearer(rw)).send({
    requirements: [{ type: 'assert-view-uuid', uuid: '00000000-0000-0000-0000-000000000000' }], updates: [{ action: 'set-properties', updates: { a: 'b' } }],
  }), 409, 'CommitFailedException');
  icebergError(await catalog().post(views()).set(bearer(ro)).send({ name: 'nope', schema, 'view-version': version('SELECT 1'), properties: {} }), 403, 'ForbiddenException');
  icebergError(await catalog().get(`/v1/${wh.id}/namespaces/none/views`).set(bearer(rw)), 404, 'NoSuchNamespaceException');
  icebergError(await catalog().get(`${views()}/ghost`).set(bearer(rw)), 404, 'NoSuchViewException');
});

test('register-view adopts an existing view metadata file', async () => {
  const created = await catalog().post(views()).set(bearer(rw)).send({ name: 'orig', schema, 'view-version': version('SELECT 3'), properties: {} }).expect(200);
  await catalog().delete(`${views()}/orig`).set(bearer(rw)).expect(204);
  const reg = await catalog().post(`/v1/${wh.id}/namespaces/v/register-view`).set(bearer(rw)).send({ name: 'back', 'metadata-location': created.body['metadata-location'] });
  expect(reg.status).toBe(200);
  expect(reg.body.metadata['view-uuid']).toBe(created.body.metadata['view-uuid']);
  expect((await catalog().head(`${views()}/back`).set(bearer(rw))).status).toBe(204);
});
