import { appendRows } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';

// Spec: POST /v1/tables, GET /v1/namespaces, GET /v1/tables, GET /v1/table,
// PATCH /v1/table, POST /v1/credentials — through the catalog.

const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'note', required: false, type: 'string' }],
};

async function setup() {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  return { org, admin, member, w };
}

test('create (catalog default and explicit v3), list, get with exact rows, idempotent replay', async () => {
  const { admin, w } = await setup();
  const key = `t-${Date.now()}`;
  const v2 = await gateway().post('/v1/tables').set(bearer(admin.api_key)).set('Idempotency-Key', key)
    .send({ warehouse_id: w.name, namespace: 'sales.eu', name: 'orders', schema });
  expect(v2.status).toBe(201);
  expect(v2.body).toMatchObject({
    table: 'sales.eu.orders', warehouse_id: w.warehouse_id, warehouse: w.name, namespace: 'sales.eu', name: 'orders',
    format_version: 2, format_version_requested: null, format_version_source: 'catalog_default', format_version_honoured: true,
  });
  expect(v2.body.location).toMatch(new RegExp(`^s3://${w.bucket}/`));
  const replay = await gateway().post('/v1/tables').set(bearer(admin.api_key)).set('Idempotency-Key', key)
    .send({ warehouse_id: w.name, namespace: 'sales.eu', name: 'orders', schema });
  expect(replay.status).toBe(201);
  expect(replay.body.table_uuid).toBe(v2.body.table_uuid);

  const v3 = await gateway().post('/v1/tables').set(bearer(admin.api_key))
    .send({ warehouse: w.warehouse_id, namespace: 'geo', name: 'places', format_version: 3,
      schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'shape', required: false, type: 'geometry' }] } });
  expect(v3.status).toBe(201);
  expect(v3.body).toMatchObject({ format_version: 3, format_version_requested: 3, format_version_source: 'request', v3_columns: [{ name: 'shape', type: 'geometry' }] });
  expect(v3.body.warnings.length).toBeGreaterThan(0);

  const ns = await gateway().get('/v1/namespaces').query({ warehouse: w.name }).set(bearer(admin.api_key));
  expect(ns.body).toEqual({ warehouse: w.name, warehouse_id: w.warehouse_id, namespaces: [{ namespace: 'geo' }, { namespace: 'sales' }, { namespace: 'sales.eu' }] });
  const all = await gateway().get('/v1/tables').query({ warehouse_id: w.warehouse_id }).set(bearer(admin.api_key));
  expect(all.body.tables).toEqual([{ namespace: 'geo', name: 'places', table: 'geo.places' }, { namespace: 'sales.eu', name: 'orders', table: 'sales.eu.orders' }]);
  const one = await gateway().get('/v1/tables').query({ warehouse: w.name, namespace: 'sales.eu' }).set(bearer(admin.api_key));
  expect(one.body).toMatchObject({ namespaces_searched: ['sales.eu'], tables: [{ name: 'orders' }] });
  const missing = await gateway().get('/v1/tables').query({ warehouse: w.name, namespace: 'nope' }).set(bearer(admin.api_key));
  expect(expectError(missing, 404, 'namespace_not_found').available).toEqual(['geo', 'sales', 'sales.eu']);

  const conn = await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key));
  const catalogToken = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const ref = { warehouseId: w.warehouse_id, bucket: w.bucket, token: catalogToken, namespace: 'sales.eu', table: 'orders' };
  const empty = await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'sales.eu', name: 'orders' }).set(bearer(admin.api_key));
  expect(empty.body).toMatchObject({ rows: 0, rows_source: 'no_snapshot', rows_is_exact: true, data_files: 0, current_snapshot_id: null });
  await appendRows(ref, [{ id: 1n, note: 'a' }, { id: 2n, note: null }]);
  const appended = await appendRows(ref, [{ id: 3n, note: 'c' }]);
  const got = await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'sales.eu', name: 'orders' }).set(bearer(admin.api_key));
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({
    table: 'sales.eu.orders', format_version: 2, rows: 3, rows_source: 'snapshot_summary', rows_is_exact: true, data_files: 2, delete_files: 0,
    snapshots: 2, current_snapshot_id: Number(appended.snapshotId), identifier_field_ids: [],
    schema: [{ id: 1, name: 'id', type: 'long', required: true }, { id: 2, name: 'note', type: 'string', required: false }],
  });
  expect(got.body.writers.length).toBeGreaterThan(0);
  // The history, newest first, with each commit's figures; the table is unsorted.
  expect(got.body.sort_order).toEqual({ order_id: 0, fields: [] });
  expect(got.body.snapshot_log).toEqual([
    expect.objectContaining({ snapshot_id: Number(appended.snapshotId), operation: 'append', current: true, added_records: 1, added_data_files: 1, total_records: 3, total_data_files: 2 }),
    expect.objectContaining({ parent_snapshot_id: null, operation: 'append', current: false, added_records: 2, total_records: 2 }),
  ]);
  expect(got.body.snapshot_log[0].parent_snapshot_id).toBe(got.body.snapshot_log[1].snapshot_id);
  expect(Date.parse(got.body.snapshot_log[0].committed_at)).toBeGreaterThanOrEqual(Date.parse(got.body.snapshot_log[1].committed_at));
  const noTable = await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'sales.eu', name: 'ghost' }).set(bearer(admin.api_key));
  expect(expectError(noTable, 404, 'table_not_found').available).toEqual(['orders']);
  expectError(await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'ghost', name: 'x' }).set(bearer(admin.api_key)), 404, 'namespace_not_found');
}, 90_000);

test('create refusals', async () => {
  const { admin, member, w } = await setup();
  expect(expectError(await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'a', schema }), 400, 'missing_field').field).toBe('name');
  expect(Object.keys(expectError(await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'a', name: 'b', schema, format_version: 1 }), 400, 'invalid_value').versions as object)).toEqual(['2', '3']);
  const geo = await gateway().post('/v1/tables').set(bearer(admin.api_key))
    .send({ warehouse_id: w.name, namespace: 'a', name: 'g', schema: { type: 'struct', fields: [{ id: 1, name: 'g', required: false, type: 'geography' }] } });
  expect(expectError(geo, 400, 'invalid_value').remedy).toEqual(expect.any(String));
  expectError(await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: 'nope', namespace: 'a', name: 'b', schema }), 404, 'warehouse_not_found');
  expectError(await gateway().post('/v1/tables').set(bearer(member.api_key)).send({ warehouse_id: w.name, namespace: 'a', name: 'b', schema }), 403, 'forbidden');
  const bad = await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'a', name: 'b', schema: { type: 'struct', fields: [{ id: 1, name: 'x', required: true, type: 'no-such-type' }] } });
  expect(expectError(bad, 400, 'catalog_error')).toMatchObject({ catalog_status: 400, catalog_type: expect.any(String) });
});

test('PATCH properties: one commit, every refusal; credentials for write holders only', async () => {
  const { admin, member, w } = await setup();
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'p', name: 't', schema, format_version: 2 }).expect(201);
  const path = '/v1/table';
  const base = { warehouse_id: w.name, namespace: 'p', name: 't' };
  const set = await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, properties: { 'owner.team': 'data', 'retention.days': 30, 'flag': true } });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ table: 'p.t', set: ['owner.team', 'retention.days', 'flag'], removed: [] });
  expect(set.body.properties).toMatchObject({ 'owner.team': 'data', 'retention.days': '30', flag: 'true' });
  expect(set.body.metadata_location).toMatch(/\.metadata\.json$/);
  const removed = await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, remove: ['flag'] });
  expect(removed.body.properties.flag).toBeUndefined();
  expect(removed.body.removed).toEqual(['flag']);

  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base }), 400, 'missing_field');
  expect(expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, properties: { 'format-version': '3' } }), 400, 'invalid_value').reserved).toEqual(['format-version']);
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, properties: { nested: { a: 1 } } }), 400, 'invalid_value');
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, properties: { 'bad key!': 'x' } }), 400, 'invalid_value');
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, properties: { big: 'x'.repeat(32769) } }), 400, 'invalid_value');
  expectError(await gateway().patch(path).set(bearer(member.api_key)).send({ ...base, properties: { a: 'b' } }), 403, 'forbidden');
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ ...base, name: 'ghost', properties: { a: 'b' } }), 404, 'table_not_found');
  const audit = await gateway().get('/v1/audit').query({ action: 'table.update' }).set(bearer(admin.api_key));
  expect(audit.body.events[audit.body.events.length - 1].data.previous).toEqual({ 'owner.team': null, 'retention.days': null, flag: null });
  expect(audit.body.events[0].data.previous).toEqual({ flag: 'true' });

  const creds = await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse: w.name, namespace: 'p', name: 't' });
  expect(creds.status).toBe(200);
  expect(creds.body).toMatchObject({ warehouse_id: w.warehouse_id, table: 'p.t', bucket: w.bucket, path_style: true });
  expect(creds.body.credentials).toMatchObject({ access_key_id: expect.any(String), secret_access_key: expect.any(String), session_token: expect.any(String) });
  expect(Date.parse(creds.body.credentials.expires_at) - Date.now()).toBeLessThanOrEqual(900_000);
  const refused = await gateway().post('/v1/credentials').set(bearer(member.api_key)).send({ warehouse_id: w.name, namespace: 'p', name: 't' });
  expect(expectError(refused, 403, 'forbidden').message).toMatch(/read-only catalog credential/);
  expectError(await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'p', name: 'ghost' }), 404, 'table_not_found');
}, 60_000);
