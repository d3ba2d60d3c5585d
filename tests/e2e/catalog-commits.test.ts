import { IcebergRestCatalog } from 'iceberg-js';
import { validatingFetch } from '../support/openapi';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Creating tables and committing to them: requirements, updates, the
// compare-and-set, stage-create, and multi-table transactions.

let wh: TestWarehouse;
let rw: string;
let ro: string;
const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'name', required: false, type: 'string' }],
};
const tablePath = (name: string) => `/v1/${wh.id}/namespaces/lake/tables/${name}`;

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  rw = await token(wh.rw.clientId, wh.rw.clientSecret);
  ro = await token(wh.ro.clientId, wh.ro.clientSecret);
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rw)).send({ namespace: ['lake'] }).expect(200);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

test('iceberg-js creates v2 and v3 tables; the catalog assigns ids and writes metadata version 0', async () => {
  const c = new IcebergRestCatalog({ baseUrl: stack().catalog_url, fetch: validatingFetch(stack().catalog_url), warehouse: wh.name, auth: { type: 'bearer', token: rw } });
  const v2 = await c.createTable({ namespace: ['lake'] }, { name: 'events', schema: schema as never });
  expect(v2['format-version']).toBe(2);
  expect(v2.location).toMatch(new RegExp(`^s3://${wh.tableBucket}/lake/events-[0-9a-f]{32}$`));
  const v3 = await c.createTable({ namespace: ['lake'] }, { name: 'events_v3', schema: schema as never, properties: { 'format-version': '3' } });
  expect(v3['format-version']).toBe(3);
  expect(v3['next-row-id']).toBe(0);
  const loaded = await catalog().get(tablePath('events')).set(bearer(ro));
  expect(loaded.body['metadata-location']).toMatch(/\/metadata\/00000-[0-9a-f-]{36}\.metadata\.json$/);
});

test('create refusals: existing name 409, missing namespace 404, location outside the bucket 400, read-only 403', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'dup', schema }).expect(200);
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'dup', schema }), 409, 'AlreadyExistsException');
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/nowhere/tables`).set(bearer(rw)).send({ name: 'x', schema }), 404, 'NoSuchNamespaceException');
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'x', schema, location: 's3://someone-else/x' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'x' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(ro)).send({ name: 'x', schema }), 403, 'ForbiddenException');
});

test('a commit applies updates, writes the next metadata version and logs the previous one', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'props', schema }).expect(200);
  const before = (await catalog().get(tablePath('props')).set(bearer(rw))).body;
  const res = await catalog().post(tablePath('props')).set(bearer(rw)).send({
    requirements: [{ type: 'assert-table-uuid', uuid: before.metadata['table-uuid'] }],
    updates: [{ action: 'set-properties', updates: { owner: 'data-team', 'write.metadata.previous-versions-max': '5' } }],
  });
  expect(res.status).toBe(200);
  expect(res.body['metadata-location']).toMatch(/\/metadata\/00001-[0-9a-f-]{36}\.metadata\.json$/);
  expect(res.body.metadata.properties).toMatchObject({ owner: 'data-team' });
  expect(res.body.metadata['metadata-log']).toEqual([{ 'timestamp-ms': before.metadata['last-updated-ms'], 'metadata-file': before['metadata-location'] }]);
  const after = (await catalog().get(tablePath('props')).set(bearer(rw))).body;
  expect(after['metadata-location']).toBe(res.body['metadata-location']);
});

test('a failed requirement is 409 CommitFailedException and changes nothing; read-only commits are 403', async () => {
  const before = (await catalog().get(tablePath('props')).set(bearer(rw))).body;
  const res = await catalog().post(tablePath('props')).set(bearer(rw)).send({
    requirements: [{ type: 'assert-current-schema-id', 'current-schema-id': 7 }],
    updates: [{ action: 'set-properties', updates: { never: 'applied' } }],
  });
  icebergError(res, 409, 'CommitFailedException');
  icebergError(await catalog().post(tablePath('props')).set(bearer(ro)).send({ requirements: [], updates: [{ action: 'set-properties', updates: { a: 'b' } }] }), 403, 'ForbiddenException');
  icebergError(await catalog().post(tablePath('ghost')).set(bearer(rw)).send({ requirements: [], updates: [] }), 404, 'NoSuchTableException');
  icebergError(await catalog().post(tablePath('props')).set(bearer(rw)).send({ requirements: [], updates: [{ action: 'no-such-action' }] }), 400, 'BadRequestException');
  const after = (await catalog().get(tablePath('props')).set(bearer(rw))).body;
  expect(after['metadata-location']).toBe(before['metadata-location']);
  expect(after.metadata.properties.never).toBeUndefined();
});

test('two commits from the same base: exactly one wins, the other is 409', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'race', schema }).expect(200);
  const base = (await catalog().get(tablePath('race')).set(bearer(rw))).body.metadata;
  const attempt = (i: number) => catalog().post(tablePath('race')).set(bearer(rw)).send({
    requirements: [{ type: 'assert-last-assigned-field-id', 'last-assigned-field-id': base['last-column-id'] }],
    updates: [{ action: 'add-schema', schema: { type: 'struct', 'schema-id': 1, fields: [...schema.fields, { id: 3, name: `c${i}`, required: false, type: 'int' }] }, 'last-column-id': 3 }, { action: 'set-current-schema', 'schema-id': -1 }],
  });
  const results = await Promise.all([attempt(1), attempt(2), attempt(3)]);
  const statuses = results.map((r) => r.status).sort();
  expect(statuses.filter((s) => s === 200)).toHaveLength(1);
  for (const r of results.filter((x) => x.status !== 200)) icebergError(r, 409, 'CommitFailedException');
  const after = (await catalog().get(tablePath('race')).set(bearer(rw))).body.metadata;
  expect(after.schemas).toHaveLength(2);
});

test('stage-create returns metadata without creating; a commit with assert-create creates it', async () => {
  const staged = await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: 'staged', schema, 'stage-create': true });
  expect(staged.status).toBe(200);
  expect(staged.body['metadata-location']).toBeNull();
  expect((await catalog().head(tablePath('staged')).set(bearer(rw))).status).toBe(404);
  const m = staged.body.metadata;
  const created = await catalog().post(tablePath('staged')).set(bearer(rw)).send({
    requirements: [{ type: 'assert-create' }],
    updates: [
      { action: 'assign-uuid', uuid: m['table-uuid'] },
      { action: 'upgrade-format-version', 'format-version': 2 },
      { action: 'add-schema', schema: m.schemas[0], 'last-column-id': m['last-column-id'] },
      { action: 'set-current-schema', 'schema-id': -1 },
      { action: 'add-spec', spec: m['partition-specs'][0] },
      { action: 'set-default-spec', 'spec-id': -1 },
      { action: 'add-sort-order', 'sort-order': m['sort-orders'][0] },
      { action: 'set-default-sort-order', 'sort-order-id': -1 },
      { action: 'set-location', location: m.location },
    ],
  });
  expect(created.status).toBe(200);
  expect(created.body.metadata['table-uuid']).toBe(m['table-uuid']);
  expect((await catalog().head(tablePath('staged')).set(bearer(rw))).status).toBe(204);
  icebergError(await catalog().post(tablePath('staged')).set(bearer(rw)).send({ requirements: [{ type: 'assert-create' }], updates: [] }), 409, 'CommitFailedException');
});

test('a transaction commits every table or none', async () => {
  for (const n of ['tx_a', 'tx_b']) await catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name: n, schema }).expect(200);
  const loc = async (n: string) => (await catalog().get(tablePath(n)).set(bearer(rw))).body['metadata-location'];
  const [a0, b0] = [await loc('tx_a'), await loc('tx_b')];
  const failing = await catalog().post(`/v1/${wh.id}/transactions/commit`).set(bearer(rw)).send({ 'table-changes': [
    { identifier: { namespace: ['lake'], name: 'tx_a' }, requirements: [], updates: [{ action: 'set-properties', updates: { batch: '1' } }] },
    { identifier: { namespace: ['lake'], name: 'tx_b' }, requirements: [{ type: 'assert-current-schema-id', 'current-schema-id': 9 }], updates: [{ action: 'set-properties', updates: { batch: '1' } }] },
  ] });
  icebergError(failing, 409, 'CommitFailedException');
  expect([await loc('tx_a'), await loc('tx_b')]).toEqual([a0, b0]);
  const ok = await catalog().post(`/v1/${wh.id}/transactions/commit`).set(bearer(rw)).send({ 'table-changes': [
    { identifier: { namespace: ['lake'], name: 'tx_a' }, requirements: [], updates: [{ action: 'set-properties', updates: { batch: '2' } }] },
    { identifier: { namespace: ['lake'], name: 'tx_b' }, requirements: [], updates: [{ action: 'set-properties', updates: { batch: '2' } }] },
  ] });
  expect(ok.status).toBe(204);
  for (const n of ['tx_a', 'tx_b']) expect((await catalog().get(tablePath(n)).set(bearer(rw))).body.metadata.properties.batch).toBe('2');
});

test('schemas without the ids the spec requires (element-id, key-id, value-id) are refused with 400, as the reference refuses them', async () => {
  const listWithoutElementId = {
    type: 'struct', 'schema-id': 0,
    fields: [{ id: 1, name: 'tags', required: false, type: { type: 'list', element: 'string', 'element-required': false } }],
  };
  const mapWithoutKeyId = {
    type: 'struct', 'schema-id': 0,
    fields: [{ id: 1, name: 'attrs', required: false, type: { type: 'map', key: 'string', 'value-id': 3, value: 'string', 'value-required': false } }],
  };
  const mapWithoutValueId = {
    type: 'struct', 'schema-id': 0,
    fields: [{ id: 1, name: 'attrs', required: false, type: { type: 'map', 'key-id': 2, key: 'string', value: 'string', 'value-required': false } }],
  };
  const fieldWithoutId = { type: 'struct', 'schema-id': 0, fields: [{ name: 'id', required: true, type: 'long' }] };
  const create = (name: string, s: unknown, extra: object = {}) =>
    catalog().post(`/v1/${wh.id}/namespaces/lake/tables`).set(bearer(rw)).send({ name, schema: s, ...extra });
  for (const [name, s] of [['no_element_id', listWithoutElementId], ['no_key_id', mapWithoutKeyId], ['no_value_id', mapWithoutValueId], ['no_field_id', fieldWithoutId]] as const) {
    const res = await create(name, s);
    icebergError(res, 400, 'BadRequestException');
    expect(res.body.error.message).toMatch(/schema/i);
    icebergError(await create(`${name}_staged`, s, { 'stage-create': true }), 400, 'BadRequestException');
    icebergError(await catalog().get(tablePath(name)).set(bearer(rw)), 404, 'NoSuchTableException');
  }
  // The same schemas in a commit's add-schema, and a partition spec or sort order of the wrong shape.
  await create('ids_checked', schema).expect(200);
  const commit = await catalog().post(tablePath('ids_checked')).set(bearer(rw)).send({
    requirements: [], updates: [{ action: 'add-schema', schema: { ...listWithoutElementId, 'schema-id': 1 } }],
  });
  icebergError(commit, 400, 'BadRequestException');
  icebergError(await create('bad_spec', schema, { 'partition-spec': { fields: [{ name: 'p', transform: 'identity' }] } }), 400, 'BadRequestException');
  icebergError(await create('bad_order', schema, { 'write-order': { 'order-id': 1, fields: [{ 'source-id': 1, transform: 'identity' }] } }), 400, 'BadRequestException');
  icebergError(await create('bad_props', schema, { properties: { a: 1 } }), 400, 'BadRequestException');
  // A view's schema likewise.
  const view = await catalog().post(`/v1/${wh.id}/namespaces/lake/views`).set(bearer(rw)).send({
    name: 'v_no_element_id', schema: listWithoutElementId,
    'view-version': { 'version-id': 1, 'timestamp-ms': Date.now(), 'schema-id': 0, summary: {}, 'default-namespace': ['lake'], representations: [{ type: 'sql', sql: 'select 1', dialect: 'spark' }] },
  });
  icebergError(view, 400, 'BadRequestException');
});
