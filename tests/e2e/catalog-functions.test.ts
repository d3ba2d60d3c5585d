import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Issue 36: functions (UDFs). listFunctions and loadFunction as the REST
// document defines them (answers validated against it), over functions made
// with Floe's own PUT …/functions/{function} and removed with DELETE — routes
// the document does not have, so they go through a plain client.

let wh: TestWarehouse;
let other: TestWarehouse;
let rw: string;
let ro: string;
const base = () => `/v1/${wh.id}/namespaces/udf/functions`;
const plain = () => request(stack().catalog_url);

/** UDF metadata of the document's shape: one definition (int) -> int, `version` versions, the last current. */
function metadata(o: { versions?: number; sql?: string } = {}) {
  const versions = Array.from({ length: o.versions ?? 1 }, (_, i) => ({
    'version-id': i + 1, representations: [{ type: 'sql', dialect: 'spark', sql: o.sql ?? 'x + 1' }], deterministic: true, 'timestamp-ms': 1_733_500_000_000 + i,
  }));
  return {
    'function-uuid': randomUUID(), 'format-version': 1,
    definitions: [{
      'definition-id': 'int', parameters: [{ name: 'x', type: 'int' }], 'return-type': 'int', versions,
      'current-version-id': versions.length, 'function-type': 'udf', doc: 'adds one',
    }],
    'definition-log': versions.map((v) => ({ 'timestamp-ms': v['timestamp-ms'], 'definition-versions': [{ 'definition-id': 'int', 'version-id': v['version-id'] }] })),
    properties: { owner: 'analytics' },
  };
}
const put = (name: string, body: unknown, t = rw) => plain().put(`${base()}/${name}`).set(bearer(t)).send(body as never);

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  other = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  ro = await token(wh.ro.clientId, wh.ro.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['udf'] }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
  await removeTestWarehouse(other);
}, 60_000);

test('made with PUT, a function is listed and loaded as the document says; replaced, then dropped', async () => {
  const m = metadata();
  const created = await put('add_one', m);
  expect(created.status).toBe(201);
  expect(created.body).toEqual({ metadata: m });

  const listed = await catalog().get(base()).set(bearer(ro));
  expect(listed.status).toBe(200);
  expect(listed.body).toEqual({ identifiers: [['udf', 'add_one']] });
  const loaded = await catalog().get(`${base()}/add_one`).set(bearer(ro));
  expect(loaded.status).toBe(200);
  expect(loaded.body).toEqual({ metadata: m });

  const replaced = await put('add_one', metadata({ versions: 2, sql: 'x + 1.0' }));
  expect(replaced.status).toBe(200);
  expect((await catalog().get(`${base()}/add_one`).set(bearer(ro))).body.metadata.definitions[0]['current-version-id']).toBe(2);

  // A namespace holding a function is not empty.
  icebergError(await catalog().delete(`/v1/${wh.id}/namespaces/udf`).set(bearer(rw)), 409, 'NamespaceNotEmptyException');
  expect((await plain().delete(`${base()}/add_one`).set(bearer(rw))).status).toBe(204);
  icebergError(await catalog().get(`${base()}/add_one`).set(bearer(ro)), 404, 'NoSuchFunctionException');
  icebergError(await plain().delete(`${base()}/add_one`).set(bearer(rw)), 404, 'NoSuchFunctionException');
  expect((await catalog().get(base()).set(bearer(ro))).body).toEqual({ identifiers: [] });
});

test('listing pages by name', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['paged'] }).expect(200);
  for (const name of ['c', 'a', 'b']) expect((await plain().put(`/v1/${wh.id}/namespaces/paged/functions/${name}`).set(bearer(rw)).send(metadata())).status).toBe(201);
  const first = await catalog().get(`/v1/${wh.id}/namespaces/paged/functions`).query({ pageSize: 2 }).set(bearer(ro));
  expect(first.body.identifiers).toEqual([['paged', 'a'], ['paged', 'b']]);
  const second = await catalog().get(`/v1/${wh.id}/namespaces/paged/functions`).query({ pageSize: 2, pageToken: first.body['next-page-token'] }).set(bearer(ro));
  expect(second.body).toEqual({ identifiers: [['paged', 'c']] });
});

test('refusals: malformed metadata, a bad name, the read-only credential, a missing namespace or function, another catalog', async () => {
  const m = metadata();
  const bad = async (body: unknown, pattern: RegExp, name = 'f') => {
    const res = await put(name, body);
    icebergError(res, 400, 'BadRequestException');
    expect(res.body.error.message).toMatch(pattern);
  };
  await bad({ ...m, 'format-version': 2 }, /format-version/);
  await bad({ ...m, 'function-uuid': 'nope' }, /function-uuid/);
  await bad({ ...m, definitions: [{ ...m.definitions[0], 'current-version-id': 9 }] }, /current-version-id 9 is not among its versions/);
  await bad({ ...m, definitions: [m.definitions[0], m.definitions[0]] }, /definition-id int appears twice/);
  await bad({ ...m, definitions: [{ ...m.definitions[0], 'return-type': 'decimal(9, 2)' }] }, /no spaces or quotes/);
  await bad({ ...m, definitions: [{ ...m.definitions[0], versions: [{ ...m.definitions[0].versions[0], representations: [{ type: 'python', code: 'x' }] }] }] }, /representations/);
  await bad({ ...m, 'definition-log': [{ 'timestamp-ms': 1, 'definition-versions': [{ 'definition-id': 'bigint', 'version-id': 1 }] }] }, /bigint version 1 is not among the definitions/);
  await bad([], /body/);
  await bad(m, /Invalid function name/, 'a.b');
  icebergError(await put('f', m, ro), 403, 'ForbiddenException');
  icebergError(await plain().delete(`${base()}/f`).set(bearer(ro)), 403, 'ForbiddenException');
  icebergError(await plain().put(`/v1/${wh.id}/namespaces/none/functions/f`).set(bearer(rw)).send(m), 404, 'NoSuchNamespaceException');
  icebergError(await catalog().get(`/v1/${wh.id}/namespaces/none/functions`).set(bearer(ro)), 404, 'NoSuchNamespaceException');
  icebergError(await catalog().get(`${base()}/ghost`).set(bearer(ro)), 404, 'NoSuchFunctionException');
  // Another catalog's credential reaches none of these.
  const theirs = await token(other.rw.clientId, other.rw.clientSecret);
  icebergError(await catalog().get(base()).set(bearer(theirs)), 404, 'NoSuchWarehouseException');
  icebergError(await put('f', m, theirs), 404, 'NoSuchWarehouseException');
});

test('20 PUTs of one new function at once: one creates it, the others replace it', async () => {
  const answers = await Promise.all(Array.from({ length: 20 }, () => put('racing', metadata())));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
  expect(answers.filter((a) => a.status === 200)).toHaveLength(19);
  expect((await catalog().get(base()).set(bearer(ro))).body.identifiers).toEqual([['udf', 'racing']]);
});
