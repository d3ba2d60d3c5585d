import request from 'supertest';
import { linkTokenIn, newestMailTo } from '../support/mail';
import { until } from '../support/poll';
import { catalog, token } from './catalog-helpers';
import { bearer, expectError, gateway, uniq } from './control-plane-helpers';
import { signInGoesStale, sql, stack } from './helpers';
import { sinkSetup, sinkTestSchema as schema } from './sink-helpers';

// PATCH /v1/sinks/{sink_id} (Floe's shape; the spec names the route in its
// error index only): rename, roll settings, disable and enable — each read
// back, every refusal, the intake routes refusing a disabled sink, and 20
// changes at once.

const MIB = 1024 * 1024;

async function newSink(extra: Record<string, unknown> = {}) {
  const s = await sinkSetup();
  const created = await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `p${uniq()}`, table: 'events.clicks', warehouse: s.w.name, ...extra });
  expect(created.status).toBe(201);
  return { ...s, sink: created.body as { sink_id: string; name: string; send_key: string } };
}

const patch = (id: string, key: string, body: unknown) => gateway().patch(`/v1/sinks/${id}`).set(bearer(key)).send(body as object);
const get = (id: string, key: string) => gateway().get(`/v1/sinks/${id}`).set(bearer(key));
const send = (sinkId: string, key: string, batchId: string, body = '[{"id":1}]') =>
  request(stack().base_url).post(`/v1/sinks/${sinkId}`).set(bearer(key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(body);
const audits = (sinkId: string) =>
  sql(`SELECT data FROM audit_events WHERE action = 'sink.update' AND target_type = 'sink' AND target_id = $1 ORDER BY id`, [sinkId]);

async function catalogToken(adminKey: string, warehouse: string): Promise<string> {
  const conn = await gateway().get('/v1/connection').query({ warehouse }).set(bearer(adminKey));
  return token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
}

test('each setting changes and reads back; the answer is the sink with updated[] and previous{}; each change is audited once', async () => {
  const { admin, w, sink } = await newSink();
  const id = sink.sink_id;

  const renamed = await patch(id, admin.api_key, { name: 'renamed' });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toMatchObject({
    sink_id: id, name: 'renamed', table: 'events.clicks', warehouse_id: w.warehouse_id, warehouse_name: w.name, state: 'active',
    roll: { seconds: 300, bytes: 64 * MIB, inactivity_seconds: null }, disabled_reason: null, deleted_at: null,
    updated: ['name'], previous: { name: sink.name },
  });
  expect(renamed.body.send_key).toBeUndefined();
  // The new name finds it; the old one no longer does.
  expect((await get('renamed', admin.api_key)).body.sink_id).toBe(id);
  expectError(await get(sink.name, admin.api_key), 404, 'sink_not_found');

  const rolled = await patch(id, admin.api_key, { roll_seconds: 60, roll_bytes: 32 * MIB, inactivity_seconds: 5 });
  expect(rolled.status).toBe(200);
  expect(rolled.body.updated.sort()).toEqual(['inactivity_seconds', 'roll_bytes', 'roll_seconds']);
  expect(rolled.body.previous).toEqual({ roll_seconds: 300, roll_bytes: 64 * MIB, inactivity_seconds: null });
  expect((await get(id, admin.api_key)).body.roll).toMatchObject({ seconds: 60, bytes: 32 * MIB, inactivity_seconds: 5 });

  const cleared = await patch(id, admin.api_key, { inactivity_seconds: null, roll_bytes: 64 * MIB });
  expect(cleared.body).toMatchObject({ previous: { inactivity_seconds: 5, roll_bytes: 32 * MIB } });
  expect((await get(id, admin.api_key)).body.roll).toMatchObject({ seconds: 60, bytes: 64 * MIB, inactivity_seconds: null });

  const off = await patch(id, admin.api_key, { enabled: false });
  expect(off.status).toBe(200);
  expect(off.body).toMatchObject({ state: 'disabled', disabled_reason: 'disabled_by_user', previous: { enabled: true, disabled_reason: null } });
  expect(off.body.updated.sort()).toEqual(['disabled_reason', 'enabled']);
  expect((await get(id, admin.api_key)).body).toMatchObject({ state: 'disabled', disabled_reason: 'disabled_by_user' });
  // Disabled, it is still listed, found and changed.
  expect((await gateway().get('/v1/sinks').query({ warehouse: w.name }).set(bearer(admin.api_key))).body.sinks).toEqual([expect.objectContaining({ sink_id: id, state: 'disabled' })]);
  expect((await patch(id, admin.api_key, { roll_seconds: 61 })).body).toMatchObject({ state: 'disabled', roll: { seconds: 61 } });

  const on = await patch(id, admin.api_key, { enabled: true });
  expect(on.body).toMatchObject({ state: 'active', disabled_reason: null, previous: { enabled: false, disabled_reason: 'disabled_by_user' } });
  expect((await get(id, admin.api_key)).body).toMatchObject({ state: 'active', disabled_reason: null });

  // Asking what is already so changes and audits nothing.
  const same = await patch(id, admin.api_key, { name: 'renamed', roll_seconds: 61, enabled: true });
  expect(same.status).toBe(200);
  expect(same.body).toMatchObject({ name: 'renamed', updated: [], previous: {} });

  const logged = (await audits(id)).map((a) => a.data);
  expect(logged).toEqual([
    { name: 'renamed', changes: { name: 'renamed' }, previous: { name: sink.name } },
    { name: 'renamed', changes: { roll_seconds: 60, roll_bytes: 32 * MIB, inactivity_seconds: 5 }, previous: { roll_seconds: 300, roll_bytes: 64 * MIB, inactivity_seconds: null } },
    { name: 'renamed', changes: { roll_bytes: 64 * MIB, inactivity_seconds: null }, previous: { roll_bytes: 32 * MIB, inactivity_seconds: 5 } },
    { name: 'renamed', changes: { enabled: false, disabled_reason: 'disabled_by_user' }, previous: { enabled: true, disabled_reason: null } },
    { name: 'renamed', changes: { roll_seconds: 61 }, previous: { roll_seconds: 60 } },
    { name: 'renamed', changes: { enabled: true, disabled_reason: null }, previous: { enabled: false, disabled_reason: 'disabled_by_user' } },
  ]);
}, 60_000);

test('bad input: 400 with the field named, and nothing changed', async () => {
  const { admin, sink } = await newSink();
  const id = sink.sink_id;
  const accepted = ['name', 'roll_seconds', 'roll_bytes', 'inactivity_seconds', 'enabled'];

  expect(expectError(await patch(id, admin.api_key, {}), 400, 'missing_field')).toMatchObject({ accepted });
  expectError(await gateway().patch(`/v1/sinks/${id}`).set(bearer(admin.api_key)), 400, 'missing_field');
  expect(expectError(await patch(id, admin.api_key, [{ name: 'x' }]), 400, 'invalid_value')).toMatchObject({ field: 'body' });
  expect(expectError(await patch(id, admin.api_key, { name: 'ok', table: 'events.other' }), 400, 'invalid_value')).toMatchObject({ field: 'table', accepted });
  expect(expectError(await patch(id, admin.api_key, { state: 'disabled' }), 400, 'invalid_value')).toMatchObject({ field: 'state', accepted });

  const wrong: Array<[Record<string, unknown>, string]> = [
    [{ name: 5 }, 'name'], [{ name: null }, 'name'], [{ roll_seconds: '300' }, 'roll_seconds'], [{ roll_seconds: 90.5 }, 'roll_seconds'],
    [{ roll_seconds: null }, 'roll_seconds'], [{ roll_bytes: '67108864' }, 'roll_bytes'], [{ inactivity_seconds: 'soon' }, 'inactivity_seconds'],
    [{ enabled: 'false' }, 'enabled'], [{ enabled: 0 }, 'enabled'], [{ enabled: null }, 'enabled'],
    // out of range: the bounds of create
    [{ roll_seconds: 59 }, 'roll_seconds'], [{ roll_seconds: 2 ** 31 }, 'roll_seconds'], [{ roll_bytes: 32 * MIB - 1 }, 'roll_bytes'],
    [{ roll_bytes: 64 * MIB + 1 }, 'roll_bytes'], [{ inactivity_seconds: 0 }, 'inactivity_seconds'], [{ inactivity_seconds: 2 ** 31 }, 'inactivity_seconds'],
    // one bad value refuses the whole change
    [{ name: 'fine', roll_seconds: 10 }, 'roll_seconds'],
  ];
  for (const [body, field] of wrong) {
    const res = await patch(id, admin.api_key, body);
    expect([JSON.stringify(body), res.status, res.body.error?.code, res.body.error?.field]).toEqual([JSON.stringify(body), 400, 'invalid_value', field]);
  }
  for (const name of ['Bad Name', '', '9lives', 'a'.repeat(64), 'dots.not.allowed']) {
    expect(expectError(await patch(id, admin.api_key, { name, roll_seconds: 120 }), 400, 'bad_name').field).toBe('name');
  }
  expect((await get(id, admin.api_key)).body).toMatchObject({ name: sink.name, state: 'active', roll: { seconds: 300, bytes: 64 * MIB, inactivity_seconds: null } });
  expect(await audits(id)).toEqual([]);
});

test('who may change a sink: write level only; another organisation gets 404; a send key or no credential is refused; sessions sign in again', async () => {
  const { admin, member, w, sink } = await newSink();
  const id = sink.sink_id;
  expectError(await patch(id, member.api_key, { roll_seconds: 120 }), 403, 'forbidden');
  const other = await sinkSetup();
  expectError(await patch(id, other.admin.api_key, { roll_seconds: 120 }), 404, 'sink_not_found');
  expectError(await patch(sink.name, other.admin.api_key, { roll_seconds: 120 }), 404, 'sink_not_found');
  // The control plane takes no send key (as on every control-plane route): refused before anything is looked up.
  expectError(await patch(id, sink.send_key, { roll_seconds: 120 }), 401, 'unauthorized');
  expectError(await gateway().patch(`/v1/sinks/${id}`).send({ roll_seconds: 120 }), 401, 'unauthorized');
  expectError(await patch('snk_000000000000000000000000', admin.api_key, { roll_seconds: 120 }), 404, 'sink_not_found');
  // A deleted sink is not found.
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'gone', schema }).expect(201);
  const gone = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `g${uniq()}`, table: 'events.gone', warehouse: w.name })).body;
  await gateway().delete(`/v1/sinks/${gone.sink_id}`).set(bearer(admin.api_key)).expect(202);
  expectError(await patch(gone.sink_id, admin.api_key, { roll_seconds: 120 }), 404, 'sink_not_found');
  expect((await get(id, admin.api_key)).body.roll.seconds).toBe(300);
  expect(await audits(id)).toEqual([]);

  // A browser session signed in over 10 minutes ago is asked to sign in again, as for create and delete.
  const email = `snkp-${uniq()}${uniq()}@example.com`;
  const handle = `snkp-${uniq()}${uniq()}`;
  expect((await gateway().post('/v1/auth/signup').send({ email, full_name: 'Ada', organization_name: `Org ${handle}`, handle })).status).toBe(202);
  const set = await gateway().post('/v1/auth/password/set').send({ token: linkTokenIn(await newestMailTo(email), 'welcome'), password: 'a long enough passphrase 42' });
  expect(set.status).toBe(200);
  const session = set.body;
  const lake = session.warehouse.warehouse_id;
  await gateway().post('/v1/tables').set(bearer(session.access_token)).send({ warehouse_id: lake, namespace: 'events', name: 'clicks', schema }).expect(201);
  const mine = await gateway().post('/v1/sinks').set(bearer(session.access_token)).send({ name: 'mine', table: 'events.clicks', warehouse: lake });
  expect(mine.status).toBe(201);
  expect((await patch(mine.body.sink_id, session.access_token, { roll_seconds: 120 })).status).toBe(200);
  await signInGoesStale(session.session_id);
  expectError(await patch(mine.body.sink_id, session.access_token, { roll_seconds: 180 }), 401, 'reauth_required');
  expect((await get(mine.body.sink_id, session.access_token)).body.roll.seconds).toBe(120);
}, 60_000);

test('disabled, the send route and the device route answer 409 sink_disabled; enabled again, both take batches', async () => {
  const { admin, sink } = await newSink();
  const id = sink.sink_id;
  const minted = await gateway().post(`/v1/sinks/${id}/device-token`).set(bearer(admin.api_key)).send({});
  expect(minted.status).toBe(201);
  const device = () => request(stack().ingest_url).post(new URL(minted.body.device_url).pathname).set('Content-Type', 'application/json').send(`{"id":${Date.now()}}`);

  expect((await send(id, sink.send_key, 'before')).status).toBe(202);
  await patch(id, admin.api_key, { enabled: false }).expect(200);
  expect(expectError(await send(id, sink.send_key, 'while-off'), 409, 'sink_disabled').message).toEqual(expect.any(String));
  expectError(await device(), 409, 'sink_disabled');
  // Refused before anything was stored: the same batch id is taken once the sink is enabled.
  expect((await sql(`SELECT batch_id FROM sink_batches WHERE sink_id = $1 ORDER BY batch_id`, [id])).map((r) => r.batch_id)).toEqual(['before']);

  await patch(id, admin.api_key, { enabled: true }).expect(200);
  expect((await send(id, sink.send_key, 'while-off')).status).toBe(202);
  expect((await device()).status).toBe(202);
  expect((await get(id, admin.api_key)).body).toMatchObject({ state: 'active', lag: { batches_waiting: 3 } });
}, 60_000);

test('a sink the roller disabled for its missing table is enabled only once the table is back and unpartitioned', async () => {
  const { admin, w, sink } = await newSink();
  const id = sink.sink_id;
  const internal = () => request(stack().services['control-plane'].url);
  const disableAsRoller = () => internal().post(`/internal/sinks/${id}/roll`).set(bearer(stack().bootstrap_secret)).send({ disabled_reason: 'table_missing' }).expect(200);
  const t = await catalogToken(admin.api_key, w.name);
  const dropTable = () => catalog().delete(`/v1/${w.warehouse_id}/namespaces/events/tables/clicks`).set(bearer(t)).expect(204);

  // The table is there: enabling clears the roller's reason.
  await disableAsRoller();
  expect((await get(id, admin.api_key)).body).toMatchObject({ state: 'disabled', disabled_reason: 'table_missing' });
  // Disabling it again keeps the roller's reason (so enabling still looks at the table).
  expect((await patch(id, admin.api_key, { enabled: false })).body).toMatchObject({ state: 'disabled', disabled_reason: 'table_missing', updated: [] });
  const back = await patch(id, admin.api_key, { enabled: true });
  expect(back.body).toMatchObject({ state: 'active', disabled_reason: null, previous: { enabled: false, disabled_reason: 'table_missing' } });

  // The table is gone: 404 table_not_found as create answers it, and nothing else of the change is written.
  await dropTable();
  await disableAsRoller();
  expect(expectError(await patch(id, admin.api_key, { enabled: true, roll_seconds: 90 }), 404, 'table_not_found').available).toEqual([]);
  expect((await get(id, admin.api_key)).body).toMatchObject({ state: 'disabled', disabled_reason: 'table_missing', roll: { seconds: 300 } });
  // Other settings of a disabled sink still change.
  expect((await patch(id, admin.api_key, { roll_seconds: 90 })).body).toMatchObject({ state: 'disabled', roll: { seconds: 90 } });

  // Made again partitioned: still refused, as create refuses it.
  const made = await catalog().post(`/v1/${w.warehouse_id}/namespaces/events/tables`).set(bearer(t)).send({
    name: 'clicks', schema: { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'ts', required: true, type: 'timestamptz' }] },
    'partition-spec': { 'spec-id': 0, fields: [{ 'source-id': 1, 'field-id': 1000, name: 'ts_day', transform: 'day' }] },
  });
  expect(made.status).toBe(200);
  expectError(await patch(id, admin.api_key, { enabled: true }), 409, 'partitioned_table_unsupported');

  // Made again unpartitioned: enabled, and sends are taken.
  await dropTable();
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'clicks', schema }).expect(201);
  expect((await patch(id, admin.api_key, { enabled: true })).body).toMatchObject({ state: 'active', disabled_reason: null });
  expect((await send(id, sink.send_key, 'after-recreate')).status).toBe(202);
}, 60_000);

test('the roller takes new roll settings at its next tick', async () => {
  const { admin, sink } = await newSink();
  const id = sink.sink_id;
  expect((await send(id, sink.send_key, 'waits')).status).toBe(202);
  // Not due under the default settings (300 s, 64 MiB, no inactivity rule).
  await new Promise((r) => setTimeout(r, 3000));
  expect((await get(id, admin.api_key)).body).toMatchObject({ lag: { batches_waiting: 1 }, roll: { count: 0 } });
  await patch(id, admin.api_key, { inactivity_seconds: 1 }).expect(200);
  const rolled = await until('the roll under the new setting', async () => {
    const got = await get(id, admin.api_key);
    return got.body.roll.count === 1 ? got.body : null;
  });
  expect(rolled).toMatchObject({ lag: { batches_waiting: 0 }, last_roll: { batches: 1, rows: 1 } });
}, 90_000);

test('a name another live sink of the catalog has is 409 already_exists; a deleted sink\'s name is free', async () => {
  const { admin, w, sink } = await newSink();
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'views', schema }).expect(201);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'taps', schema }).expect(201);
  const views = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'views', table: 'events.views', warehouse: w.name })).body;
  const taps = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'taps', table: 'events.taps', warehouse: w.name })).body;

  expect(expectError(await patch(sink.sink_id, admin.api_key, { name: 'views', roll_seconds: 120 }), 409, 'already_exists').field).toBe('name');
  expect((await get(sink.sink_id, admin.api_key)).body).toMatchObject({ name: sink.name, roll: { seconds: 300 } });
  // A disabled sink still holds its name.
  await patch(views.sink_id, admin.api_key, { enabled: false }).expect(200);
  expectError(await patch(sink.sink_id, admin.api_key, { name: 'views' }), 409, 'already_exists');
  // Deleted, it frees the name.
  await gateway().delete(`/v1/sinks/${taps.sink_id}`).set(bearer(admin.api_key)).expect(202);
  expect((await patch(sink.sink_id, admin.api_key, { name: 'taps' })).body).toMatchObject({ name: 'taps', previous: { name: sink.name } });
  // Another organisation's catalog is another place for names.
  const other = await newSink();
  expect((await patch(other.sink.sink_id, other.admin.api_key, { name: 'taps' })).status).toBe(200);
  expect(await audits(sink.sink_id)).toHaveLength(1);
}, 60_000);

test('20 changes at once: each is whole, the last one holds, one audit per change, and each audit replaced the one before', async () => {
  const { admin, w, sink } = await newSink();
  const id = sink.sink_id;
  const asked = Array.from({ length: 20 }, (_, i) => ({ name: `race-${i}`, roll_seconds: 100 + i, inactivity_seconds: 10 + i }));
  const answers = await Promise.all(asked.map((body) => patch(id, admin.api_key, body)));
  const ok = answers.filter((r) => r.status === 200);
  for (const r of answers.filter((x) => x.status !== 200)) throw new Error(`unexpected ${r.status} ${r.text}`);
  expect(ok).toHaveLength(20);
  for (const r of ok) expect(r.body.updated.sort()).toEqual(['inactivity_seconds', 'name', 'roll_seconds']);

  // The row holds exactly one request's values, all of them.
  const final = (await get(id, admin.api_key)).body;
  const winner = asked.find((a) => a.name === final.name);
  expect(winner).toBeDefined();
  expect(final.roll).toMatchObject({ seconds: winner!.roll_seconds, inactivity_seconds: winner!.inactivity_seconds });
  expect(await sql(`SELECT id FROM sinks WHERE warehouse_id = $1`, [w.warehouse_id])).toEqual([{ id }]);

  // One audit per answer; their previous names are the start and every name but the last: a chain, no change lost or mixed.
  const logged = (await audits(id)).map((a) => a.data);
  expect(logged).toHaveLength(ok.length);
  for (const a of logged) {
    const i = Number(a.changes.name.slice('race-'.length));
    expect(a.changes).toEqual({ name: `race-${i}`, roll_seconds: 100 + i, inactivity_seconds: 10 + i });
    expect(a.name).toBe(a.changes.name);
  }
  const previous = logged.map((a) => a.previous.name);
  expect(new Set(previous).size).toBe(20);
  expect([...previous, final.name].sort()).toEqual([sink.name, ...asked.map((a) => a.name)].sort());
}, 60_000);
