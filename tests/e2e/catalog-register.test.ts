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

describe('unregister', () => {
  const props = (res: { body: { metadata: { properties?: Record<string, string> } } }) => res.body.metadata.properties ?? {};
  const commit = (name: string, updates: Record<string, string>) =>
    catalog().post(`${base()}/tables/${name}`).set(bearer(rw)).send({ requirements: [], updates: [{ action: 'set-properties', updates }] });

  test('answers the last metadata location and metadata, forgets the table, leaves its files for a register', async () => {
    const created = await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'leaving', schema }).expect(200);
    const committed = await commit('leaving', { owner: 'team-a' });
    expect(committed.status).toBe(200);

    const gone = await catalog().post(`${base()}/tables/leaving/unregister`).set(bearer(rw));
    expect(gone.status).toBe(200);
    expect(gone.body['metadata-location']).toBe(committed.body['metadata-location']);
    expect(gone.body['metadata-location']).not.toBe(created.body['metadata-location']);
    expect(gone.body.metadata['table-uuid']).toBe(created.body.metadata['table-uuid']);
    expect(props(gone).owner).toBe('team-a');
    expect(Object.keys(gone.body).sort()).toEqual(['metadata', 'metadata-location']);

    icebergError(await catalog().get(`${base()}/tables/leaving`).set(bearer(rw)), 404, 'NoSuchTableException');
    icebergError(await commit('leaving', { late: 'yes' }), 404, 'NoSuchTableException');
    icebergError(await catalog().post(`${base()}/tables/leaving/unregister`).set(bearer(rw)), 404, 'NoSuchTableException');

    // The files stayed: the same metadata file registers again, with the same table.
    const back = await catalog().post(`${base()}/register`).set(bearer(rw)).send({ name: 'leaving', 'metadata-location': gone.body['metadata-location'] });
    expect(back.status).toBe(200);
    expect(back.body.metadata['table-uuid']).toBe(created.body.metadata['table-uuid']);
    expect(back.body.metadata.properties.owner).toBe('team-a');
  });

  test('refusals: a read-only credential, an unknown table, another catalog', async () => {
    await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'kept', schema }).expect(200);
    icebergError(await catalog().post(`${base()}/tables/kept/unregister`).set(bearer(ro)), 403, 'ForbiddenException');
    icebergError(await catalog().post(`${base()}/tables/ghost/unregister`).set(bearer(rw)), 404, 'NoSuchTableException');
    icebergError(await catalog().post(`/v1/${wh.id}/namespaces/none/tables/kept/unregister`).set(bearer(rw)), 404, 'NoSuchTableException');
    const other = await createTestWarehouse(stack());
    try {
      const otherToken = await token(other.rw.clientId, other.rw.clientSecret);
      icebergError(await catalog().post(`${base()}/tables/kept/unregister`).set(bearer(otherToken)), 404, 'NoSuchWarehouseException');
    } finally {
      await removeTestWarehouse(other);
    }
    expect((await catalog().get(`${base()}/tables/kept`).set(bearer(ro))).status).toBe(200);
  }, 60_000);

  test('20 unregisters at once: exactly one answers the table, the others find it gone', async () => {
    await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'once', schema }).expect(200);
    const answers = await Promise.all(Array.from({ length: 20 }, () => catalog().post(`${base()}/tables/once/unregister`).set(bearer(rw))));
    expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
    for (const r of answers.filter((a) => a.status !== 200)) icebergError(r, 404, 'NoSuchTableException');
  });

  test('racing 20 commits: the answered metadata holds every commit that succeeded, and none succeeds after it', async () => {
    await catalog().post(`${base()}/tables`).set(bearer(rw)).send({ name: 'busy', schema }).expect(200);
    const commits = Array.from({ length: 20 }, (_, i) => commit('busy', { [`c${i}`]: String(i) }));
    const unregister = new Promise<Awaited<ReturnType<typeof commit>>>((resolve) => setTimeout(() => resolve(catalog().post(`${base()}/tables/busy/unregister`).set(bearer(rw))), 15));
    const [gone, ...answers] = await Promise.all([unregister, ...commits]);
    expect(gone.status).toBe(200);
    const kept = props(gone);
    answers.forEach((r, i) => {
      expect([200, 404, 409]).toContain(r.status);
      if (r.status === 200) expect(kept[`c${i}`]).toBe(String(i));
      else expect(kept[`c${i}`]).toBeUndefined();
    });
    icebergError(await commit('busy', { after: 'x' }), 404, 'NoSuchTableException');
  }, 60_000);
});
