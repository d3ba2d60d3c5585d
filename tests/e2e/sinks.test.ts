import { catalog, token } from './catalog-helpers';
import { bearer, expectError, gateway } from './control-plane-helpers';
import { sinkSetup, sinkTestSchema as schema } from './sink-helpers';

// Spec: Ingest sinks — the records: create, list, get, delete, and their refusals.

test('create answers the sink with its send key once; list and get never show a key; delete', async () => {
  const { admin, member, w } = await sinkSetup();
  const created = await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'clicks', table: 'events.clicks', warehouse: w.name, roll_seconds: 60 });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({
    name: 'clicks', table: 'events.clicks', warehouse_id: w.warehouse_id, warehouse_name: w.name, bucket: w.blob_bucket, state: 'active',
    roll: { seconds: 60, bytes: 67108864, inactivity_seconds: null, count: 0 },
    table_changes: { add_column: '__ingest_ts', partition: 'none', applied: false },
    lag: { batches_waiting: 0, bytes_waiting: 0 }, iam_writes: [], disabled_reason: null, deleted_at: null,
  });
  expect(created.body.sink_id).toMatch(/^snk_[0-9a-f]{24}$/);
  expect(created.body.prefix).toBe(`_sink/${created.body.sink_id}/`);
  expect(created.body.send_key).toMatch(new RegExp(`^fsk_${created.body.send_key_id}_`));

  const listed = await gateway().get('/v1/sinks').query({ warehouse: w.name }).set(bearer(member.api_key));
  expect(listed.status).toBe(200);
  expect(listed.body.count).toBe(1);
  expect(JSON.stringify(listed.body)).not.toContain(created.body.send_key);
  const byName = await gateway().get('/v1/sinks/clicks').set(bearer(member.api_key));
  expect(byName.body).toMatchObject({ sink_id: created.body.sink_id, rejects: { rows: 0, files: 0 } });
  expect(byName.body.send_key).toBeUndefined();

  // The send key is a credential of the send route only.
  expectError(await gateway().get('/v1/warehouses').set(bearer(created.body.send_key)), 401, 'unauthorized');

  expectError(await gateway().delete(`/v1/sinks/${created.body.sink_id}`).set(bearer(member.api_key)), 403, 'forbidden');
  const deleted = await gateway().delete(`/v1/sinks/${created.body.sink_id}`).set(bearer(admin.api_key));
  expect(deleted.status).toBe(202);
  expect(deleted.body).toMatchObject({ state: 'deleted', pending_batches_discarded: 0 });
  expect(deleted.body.deleted_at).toEqual(expect.any(String));
  expect((await gateway().get('/v1/sinks').set(bearer(admin.api_key))).body.count).toBe(0);
  expect((await gateway().get('/v1/sinks').query({ include_deleted: 'true' }).set(bearer(admin.api_key))).body.sinks[0]).toMatchObject({ state: 'deleted' });
  expectError(await gateway().get(`/v1/sinks/${created.body.sink_id}`).set(bearer(admin.api_key)), 404, 'sink_not_found');
  // The table can take a new sink once the old one is deleted.
  expect((await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'clicks2', table: 'events.clicks', warehouse: w.name })).status).toBe(201);
});

test('create refusals', async () => {
  const { admin, member, w } = await sinkSetup();
  const post = (body: Record<string, unknown>, key = admin.api_key) => gateway().post('/v1/sinks').set(bearer(key)).send({ warehouse: w.name, table: 'events.clicks', name: 's1', ...body });
  expectError(await post({ name: 'Bad Name' }), 400, 'bad_name');
  expect(expectError(await post({ roll_seconds: 59 }), 400, 'invalid_value').field).toBe('roll_seconds');
  expect(expectError(await post({ roll_bytes: 1024 }), 400, 'invalid_value').field).toBe('roll_bytes');
  expect(expectError(await post({ roll_bytes: 65 * 1024 * 1024 }), 400, 'invalid_value').field).toBe('roll_bytes');
  expectError(await post({}, member.api_key), 403, 'forbidden');
  expectError(await post({ warehouse: 'nope' }), 404, 'warehouse_not_found');
  expect(expectError(await post({ table: 'events.nope' }), 404, 'table_not_found').available).toEqual(['clicks']);
  expectError(await post({ table: 'nons.x' }), 404, 'namespace_not_found');

  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'views', schema }).expect(201);
  expect((await post({})).status).toBe(201);
  expectError(await post({ name: 's2' }), 409, 'sink_exists');
  expectError(await post({ table: 'events.views' }), 409, 'already_exists');

  // A partitioned table, made by an engine through the catalog.
  const conn = await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key));
  const t = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const made = await catalog().post(`/v1/${w.warehouse_id}/namespaces/events/tables`).set(bearer(t)).send({
    name: 'by_day', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'ts', required: true, type: 'timestamptz' }] },
    'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'ts_day', transform: 'day' }] },
  });
  expect(made.status).toBe(200);
  expectError(await post({ name: 's3', table: 'events.by_day' }), 409, 'partitioned_table_unsupported');
}, 60_000);
