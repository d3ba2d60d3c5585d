import { catalog, token } from './catalog-helpers';
import { bearer, expectError, gateway } from './control-plane-helpers';
import { sql } from './helpers';
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

test('20 creates at once: one sink per table (sink_exists), one name per catalog (already_exists); another organisation\'s name is its own', async () => {
  const { admin, w } = await sinkSetup();
  const post = (body: Record<string, unknown>, key = admin.api_key, warehouse = w.name) => gateway().post('/v1/sinks').set(bearer(key)).send({ warehouse, ...body });
  const live = async () => sql(`SELECT name, namespace, table_name FROM sinks WHERE warehouse_id = $1 AND state <> 'deleted' ORDER BY name`, [w.warehouse_id]);

  // 20 names on one table: one sink.
  const onTable = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ name: `race${i}`, table: 'events.clicks' })));
  const made = onTable.filter((r) => r.status === 201);
  expect(made).toHaveLength(1);
  for (const r of onTable.filter((x) => x.status !== 201)) expect(expectError(r, 409, 'sink_exists').sink).toBe(made[0].body.name);

  // One name on 20 tables: one sink; the name still finds exactly it.
  for (let i = 0; i < 20; i += 5) {
    await Promise.all([0, 1, 2, 3, 4].map((j) => gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: `t${i + j}`, schema }).expect(201)));
  }
  const oneName = await Promise.all(Array.from({ length: 20 }, (_, i) => post({ name: 'same', table: `events.t${i}` })));
  const named = oneName.filter((r) => r.status === 201);
  expect(named).toHaveLength(1);
  for (const r of oneName.filter((x) => x.status !== 201)) expect(expectError(r, 409, 'already_exists').field).toBe('name');
  expect(await live()).toEqual([
    { name: made[0].body.name, namespace: 'events', table_name: 'clicks' },
    { name: 'same', namespace: 'events', table_name: named[0].body.table.split('.')[1] },
  ]);
  expect((await gateway().get('/v1/sinks/same').set(bearer(admin.api_key))).body.sink_id).toBe(named[0].body.sink_id);
  expect(await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'sink.create' AND data->>'warehouse_id' = $1`, [w.warehouse_id])).toEqual([{ n: 2 }]);

  // 20 deletions at once: one 202 and one audit, the rest 404 as a later deletion is; the table and the name are free again.
  const deletions = await Promise.all(Array.from({ length: 20 }, () => gateway().delete(`/v1/sinks/${named[0].body.sink_id}`).set(bearer(admin.api_key))));
  expect(deletions.filter((r) => r.status === 202)).toHaveLength(1);
  for (const r of deletions.filter((x) => x.status !== 202)) expectError(r, 404, 'sink_not_found');
  expect(await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'sink.delete' AND target_id = $1`, [named[0].body.sink_id])).toEqual([{ n: 1 }]);
  expect((await post({ name: 'same', table: named[0].body.table })).status).toBe(201);

  // Another organisation's catalog takes the same name and table name; this organisation still finds its own by name.
  const other = await sinkSetup();
  expect((await post({ name: 'same', table: 'events.clicks' }, other.admin.api_key, other.w.name)).status).toBe(201);
  expect((await gateway().get('/v1/sinks/same').set(bearer(admin.api_key))).body.warehouse_id).toBe(w.warehouse_id);
}, 120_000);
