import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Registering an existing metadata file as a table, and accepting metrics reports.

let wh: TestWarehouse;
let rw: string;
let ro: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
const base = () => `/v1/${wh.id}/namespaces/reg`;

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  ro = await token(wh.ro.clientId, wh.ro.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['reg'] }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

test('a dropped table registers again from its metadata file; overwrite moves an existing one', async () => {
  const created = await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'orig', schema }).expect(200);
  const location = created.body['metadata-location'];
  await catalog().delete(`${base()}/tables/orig`).set(bearer(rw)).expect(204);

  const reg = await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'again', 'metadata-location': location });
  expect(reg.status).toBe(200);
  expect(reg.body['metadata-location']).toBe(location);
  expect(reg.body.metadata['table-uuid']).toBe(created.body.metadata['table-uuid']);
  const loaded = await catalog().get(`${base()}/tables/again`).set(bearer(ro));
  expect(loaded.body['metadata-location']).toBe(location);

  icebergError(await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'again', 'metadata-location': location }), 409, 'AlreadyExistsException');
  const other = await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'other', schema }).expect(200);
  // Two live tables never share a location: registering the live table's own file under a second name is refused.
  icebergError(await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'again', 'metadata-location': other.body['metadata-location'], overwrite: true }), 400, 'BadRequestException');
  await catalog().delete(`${base()}/tables/other`).set(bearer(rw)).expect(204);
  const over = await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'again', 'metadata-location': other.body['metadata-location'], overwrite: true });
  expect(over.status).toBe(200);
  expect((await catalog().get(`${base()}/tables/again`).set(bearer(rw))).body['metadata-location']).toBe(other.body['metadata-location']);
});

test('register refusals: outside the bucket, unreadable file, missing namespace, read-only credential', async () => {
  icebergError(await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'x', 'metadata-location': 's3://elsewhere/t/metadata/1.json' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'x', 'metadata-location': `s3://${wh.tableBucket}/nothing/here.metadata.json` }), 400, 'BadRequestException');
  icebergError(await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'x' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/none/register`).set(bearer(rw)).send({ name: 'x', 'metadata-location': `s3://${wh.tableBucket}/a.json` }), 404, 'NoSuchNamespaceException');
  icebergError(await catalog().post(`${base()}/register`).set(bearer(ro)).send({ name: 'x', 'metadata-location': `s3://${wh.tableBucket}/a.json` }), 403, 'ForbiddenException');
});

test('a metrics report is accepted (204) for an existing table, and refused for an unknown one', async () => {
  await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'measured', schema }).expect(200);
  const report = { 'report-type': 'scan-report', 'table-name': 'reg.measured', 'snapshot-id': 1, filter: true, 'schema-id': 0, 'projected-field-ids': [1], 'projected-field-names': ['id'], metrics: {} };
  expect((await catalog().post(`${base()}/tables/measured/metrics`).set(bearer(ro)).send(report)).status).toBe(204);
  icebergError(await catalog().post(`${base()}/tables/ghost/metrics`).set(bearer(ro)).send(report), 404, 'NoSuchTableException');
  icebergError(await catalog().post(`${base()}/tables/measured/metrics`).set(bearer(ro)).send({}), 400, 'BadRequestException');
});
