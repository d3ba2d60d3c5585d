import { createHash } from 'node:crypto';
import request from 'supertest';
import { objectText } from './sink-objects';
import { bearer, expectError, gateway, uniq } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkSetup } from './sink-helpers';

// Spec: Ingest sinks — the device route POST /d/{token} on {ingest_url}, the
// device token (POST/DELETE /v1/sinks/{id}/device-token) and the dry run
// (POST /v1/sinks/{id}/test).

async function deviceSink(options: Record<string, unknown> = {}) {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `d${uniq()}`, table: 'events.clicks', warehouse: s.w.name })).body;
  const minted = await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(s.admin.api_key)).send(options);
  expect(minted.status).toBe(201);
  return { ...s, sink, minted: minted.body, path: new URL(minted.body.device_url).pathname };
}

const post = (path: string, type: string | null, body: string | Buffer, base = stack().ingest_url) => {
  const r = request(base).post(path);
  return (type === null ? r : r.set('Content-Type', type)).send(body);
};

test('minting a device token: the URL once, only its hash kept; the sink shows the options', async () => {
  const { admin, sink, minted } = await deviceSink({ required_field: 'key', pinned_value: 'kitchen-secret', strip_fields: ['mac'] });
  expect(minted).toMatchObject({
    sink_id: sink.sink_id, replaced: false, rate: { posts_per_minute: 6, burst: 30 }, body_limit_bytes: 262144,
    options: { required_field: 'key', pinned: true, strip_fields: ['mac'], preset: 'as_is', preset_params: {} },
  });
  expect(minted.device_url).toBe(`${stack().ingest_url}/d/${minted.device_token}`);
  expect(minted.device_token).toMatch(/^fdt_[A-Za-z0-9_-]{43}$/);
  const [row] = await sql(`SELECT device_token_hash, device_options::text AS options FROM sinks WHERE id = $1`, [sink.sink_id]);
  expect(row.device_token_hash).toBe(createHash('sha256').update(minted.device_token).digest('hex'));
  expect(row.options).not.toContain('kitchen-secret');

  const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key));
  expect(got.body.device).toMatchObject({ enabled: true, options: { required_field: 'key', pinned: true } });
  expect(JSON.stringify(got.body)).not.toContain(minted.device_token);
});

test('every body format is stored as NDJSON; an identical post is a duplicate; intake is metered', async () => {
  const { w, admin, sink, path } = await deviceSink();
  const bodies: Array<[string | null, string, number, number]> = [
    ['application/json', '{"id": 12345678901234567890, "msg": "one"}', 1, 0],
    ['application/json', '[{"id": 2}, 3, {"id": 4, "msg": "x"}]', 2, 1],
    ['application/x-ndjson', '{"id":5}\nnot json\n{"id":6}\n', 2, 1],
    ['text/csv', 'id,msg\n7,"a, b"\n8\n', 1, 1],
    ['application/x-www-form-urlencoded', 'id=9&msg=form%20post', 1, 0],
    // curl -d labels JSON as a form; it is read as the JSON it is.
    ['application/x-www-form-urlencoded', '{"id":10}', 1, 0],
  ];
  const batchIds: string[] = [];
  let intake = 0;
  for (const [type, body, accepted, rejected] of bodies) {
    const res = await post(path, type, body);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ accepted, rejected, sink_id: sink.sink_id, state: 'pending' });
    expect(res.body.batch_id).toMatch(/^d_[0-9a-f]{40}$/);
    batchIds.push(res.body.batch_id);
    intake += Buffer.byteLength(body);
  }
  expect((await post(path, 'application/json', '[{"id": 2}, 3, {"id": 4, "msg": "x"}]')).body.reasons)
    .toBeUndefined(); // the duplicate answer carries the stored counts, not a re-judgement
  const stored = await Promise.all(batchIds.map((b) => objectText(w.warehouse_id, w.blob_bucket, `_sink/${sink.sink_id}/${b}.ndjson`)));
  expect(stored).toEqual([
    '{"id": 12345678901234567890, "msg": "one"}\n',
    '{"id": 2}\n{"id": 4, "msg": "x"}\n',
    '{"id":5}\n{"id":6}\n',
    '{"id":"7","msg":"a, b"}\n',
    '{"id":"9","msg":"form post"}\n',
    '{"id":10}\n',
  ]);

  const again = await post(path, 'text/csv', 'id,msg\n7,"a, b"\n8\n');
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ duplicate: true, batch_id: batchIds[3], accepted: 1, rejected: 1, state: 'pending' });
  // The same JSON under another label is the same post; the same text read as another format is not.
  expect((await post(path, 'text/plain', '{"id":10}')).body).toMatchObject({ duplicate: true, batch_id: batchIds[5] });
  expect((await post(path, 'application/x-ndjson', '{"id":10}')).status).toBe(202);
  intake += Buffer.byteLength('{"id":10}');

  const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key));
  expect(got.body.received).toMatchObject({ batches: 7, device_batches: 7, rows: 9, rejected_elements: 3, ingest_bytes: intake });
  expect(got.body.lag.batches_waiting).toBe(7);
});

test('the API host sends a device to {ingest_url} with 308', async () => {
  const { path } = await deviceSink();
  const res = await post(path, 'application/json', '{"id":1}', stack().base_url).redirects(0);
  expect(res.status).toBe(308);
  expect(res.headers.location).toBe(`${stack().ingest_url}${path}`);
});

test('options: a pinned field must match and is never stored; stripped fields go; flatten and wrap presets', async () => {
  const pinned = await deviceSink({ required_field: 'key', pinned_value: 'kitchen-secret', strip_fields: ['mac'] });
  const ok = await post(pinned.path, 'application/x-www-form-urlencoded', 'key=kitchen-secret&id=1&mac=aa:bb');
  expect(ok.status).toBe(202);
  expect(await objectText(pinned.w.warehouse_id, pinned.w.blob_bucket, `_sink/${pinned.sink.sink_id}/${ok.body.batch_id}.ndjson`)).toBe('{"id":"1"}\n');
  expectError(await post(pinned.path, 'application/x-www-form-urlencoded', 'key=guess&id=1'), 401, 'invalid_device_secret');
  expectError(await post(pinned.path, 'application/json', '[{"key":"kitchen-secret","id":2},{"id":3}]'), 401, 'invalid_device_secret');

  const flat = await deviceSink({ preset: 'flatten', preset_params: { separator: '_' }, required_field: 'id' });
  const f = await post(flat.path, 'application/json', '[{"id":1,"env":{"t":21.5}},{"msg":"no id"}]');
  expect(f.body).toMatchObject({ accepted: 1, rejected: 1, reasons: [{ index: 1, reason: 'required field id is missing', got: 'object' }] });
  expect(await objectText(flat.w.warehouse_id, flat.w.blob_bucket, `_sink/${flat.sink.sink_id}/${f.body.batch_id}.ndjson`)).toBe('{"id":1,"env_t":21.5}\n');

  const wrap = await deviceSink({ preset: 'wrap', preset_params: { column: 'msg' } });
  const g = await post(wrap.path, 'application/json', '{"a":[1,2]}');
  expect(await objectText(wrap.w.warehouse_id, wrap.w.blob_bucket, `_sink/${wrap.sink.sink_id}/${g.body.batch_id}.ndjson`)).toBe('{"msg":"{\\"a\\":[1,2]}"}\n');
});

test('an element nested past the parser\'s 1,000 levels is that element\'s misfit under options, never a 500', async () => {
  const flat = await deviceSink({ preset: 'flatten' });
  const deep = `${'{"a":'.repeat(1200)}1${'}'.repeat(1200)}`;
  const res = await post(flat.path, 'application/x-ndjson', `{"id":1}\n${deep}`);
  expect(res.status).toBe(202);
  expect(res.body).toMatchObject({ accepted: 1, rejected: 1, reasons: [{ index: 1, reason: 'not readable: nesting deeper than 1000 levels', got: 'object' }] });
  expect(await objectText(flat.w.warehouse_id, flat.w.blob_bucket, `_sink/${flat.sink.sink_id}/${res.body.batch_id}.ndjson`)).toBe('{"id":1}\n');
});

test('30 posts in a burst, then 429 rate_limited with a Retry-After of a few seconds', async () => {
  const { path } = await deviceSink();
  for (let i = 0; i < 30; i++) expect((await post(path, 'application/json', `{"id":${i}}`)).status).toBe(202);
  const limited = await post(path, 'application/json', '{"id":30}');
  expectError(limited, 429, 'rate_limited');
  const wait = Number(limited.headers['retry-after']);
  expect(wait).toBeGreaterThanOrEqual(1);
  expect(wait).toBeLessThanOrEqual(10);
  expect(limited.body.error.retry_after_seconds).toBe(wait);
});

test('device route refusals: unknown, replaced and removed tokens, size, unreadable and unsupported bodies, disabled sink, storage outage', async () => {
  const { admin, w, sink, path, minted } = await deviceSink();
  expectError(await post('/d/fdt_' + 'A'.repeat(43), 'application/json', '{"id":1}'), 401, 'invalid_device_token');
  expectError(await post('/d/not-a-token', 'application/json', '{"id":1}'), 401, 'invalid_device_token');
  expectError(await post(path, 'application/json', Buffer.alloc(256 * 1024 + 1, 0x20)), 413, 'body_too_large');
  expectError(await post(path, 'application/json', '{"id":'), 400, 'unreadable_body');
  expectError(await post(path, 'text/csv', 'id,id\n1,2\n'), 400, 'unreadable_body');
  expectError(await post(path, 'application/xml', '<id>1</id>'), 415, 'unsupported_media_type');

  // A storage outage for this catalog's blob bucket: 502, nothing recorded; the same post later is accepted.
  await sql(`UPDATE warehouses SET blob_bucket = $2 WHERE id = $1`, [w.warehouse_id, `${w.blob_bucket}-gone`]);
  const failed = await post(path, 'application/json', '{"id":77}');
  await sql(`UPDATE warehouses SET blob_bucket = $2 WHERE id = $1`, [w.warehouse_id, w.blob_bucket]);
  expectError(failed, 502, 'storage_error');
  expect(failed.headers['retry-after']).toBe('2');
  expect(await sql(`SELECT 1 FROM sink_batches WHERE sink_id = $1`, [sink.sink_id])).toEqual([]);
  expect((await post(path, 'application/json', '{"id":77}')).status).toBe(202);

  // Over the storage limit nothing is accepted, as on the send route.
  await sql(`INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', 6000000000, 0, 1, 0, true)`, [w.warehouse_id]);
  const over = await post(path, 'application/json', '{"id":76}');
  await sql(`DELETE FROM usage_samples WHERE warehouse_id = $1`, [w.warehouse_id]);
  expect(expectError(over, 409, 'quota_exceeded')).toMatchObject({ limit_value: 5_368_709_120 });

  await sql(`UPDATE sinks SET state = 'disabled', disabled_reason = 'table_missing' WHERE id = $1`, [sink.sink_id]);
  expectError(await post(path, 'application/json', '{"id":78}'), 409, 'sink_disabled');
  await sql(`UPDATE sinks SET state = 'active', disabled_reason = NULL WHERE id = $1`, [sink.sink_id]);

  const replaced = await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({});
  expect(replaced.body).toMatchObject({ replaced: true });
  expectError(await post(path, 'application/json', '{"id":79}'), 401, 'invalid_device_token');
  const fresh = new URL(replaced.body.device_url).pathname;
  expect((await post(fresh, 'application/json', '{"id":79}')).status).toBe(202);
  expect(minted.device_token).not.toBe(replaced.body.device_token);

  const removed = await gateway().delete(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key));
  expect(removed.status).toBe(200);
  expect(removed.body).toMatchObject({ sink_id: sink.sink_id, removed: true });
  expectError(await post(fresh, 'application/json', '{"id":80}'), 401, 'invalid_device_token');
  expect((await gateway().delete(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key))).body.removed).toBe(false);

  // A deleted sink's URL is as unknown as a made-up one.
  const again = await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({});
  await gateway().delete(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key)).expect(202);
  expectError(await post(new URL(again.body.device_url).pathname, 'application/json', '{"id":81}'), 401, 'invalid_device_token');
});

test('device-token refusals: read level, unknown sink, bad options, the plan\'s 10 device sinks', async () => {
  const { admin, member, w, sink } = await deviceSink();
  expectError(await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(member.api_key)).send({}), 403, 'forbidden');
  expectError(await gateway().delete(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(member.api_key)), 403, 'forbidden');
  expectError(await gateway().post('/v1/sinks/snk_nope/device-token').set(bearer(admin.api_key)).send({}), 404, 'sink_not_found');
  expectError(await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({ pinned_value: 'long-enough' }), 400, 'invalid_value');
  expectError(await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({ preset: 'explode' }), 400, 'invalid_value');
  expectError(await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({ preset: 'as_is', preset_params: { column: 'x' } }), 400, 'invalid_value');
  expectError(await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({ required_field: 'k', pinned_value: 'short' }), 400, 'invalid_value');
  expectError(await request(stack().base_url).post(`/v1/sinks/${sink.sink_id}/device-token`).send({}), 401, 'unauthorized');

  // Nine more device sinks in this organisation fill the plan; the eleventh is refused, a replacement is not.
  for (let i = 0; i < 9; i++) {
    const name = `t${i}`;
    await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name, schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: false, type: 'long' }] } }).expect(201);
    const s = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `n${i}`, table: `events.${name}`, warehouse: w.name })).body;
    await gateway().post(`/v1/sinks/${s.sink_id}/device-token`).set(bearer(admin.api_key)).send({}).expect(201);
  }
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'events', name: 'eleventh', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: false, type: 'long' }] } }).expect(201);
  const eleventh = (await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: 'eleventh', table: 'events.eleventh', warehouse: w.name })).body;
  const refused = expectError(await gateway().post(`/v1/sinks/${eleventh.sink_id}/device-token`).set(bearer(admin.api_key)).send({}), 409, 'limit_exceeded');
  expect(refused).toMatchObject({ limit: 'device_sinks', limit_value: 10, current: 10 });
  expect((await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(admin.api_key)).send({})).status).toBe(201);
});

test('20 device tokens at once for 20 sinks stop exactly at the plan\'s 10 (limit_exceeded); another organisation counts its own', async () => {
  const { admin, w } = await sinkSetup();
  // Twenty sinks on tables of their own (rows as the create route writes them; the token route reads no table).
  const ids = Array.from({ length: 20 }, (_, i) => `snk_race${i}${uniq()}${uniq()}`);
  for (const [i, id] of ids.entries()) {
    await sql(`INSERT INTO sinks (id, name, warehouse_id, namespace, table_name, send_key_id, send_key_hash) VALUES ($1, $2, $3, 'events', $2, $1, 'x')`, [id, `dev${i}`, w.warehouse_id]);
  }
  const answers = await Promise.all(ids.map((id) => gateway().post(`/v1/sinks/${id}/device-token`).set(bearer(admin.api_key)).send({})));
  expect(answers.filter((r) => r.status === 201)).toHaveLength(10);
  for (const r of answers.filter((x) => x.status !== 201)) {
    expect(expectError(r, 409, 'limit_exceeded')).toMatchObject({ limit: 'device_sinks', limit_value: 10, current: 10 });
  }
  expect(await sql(`SELECT count(*)::int AS n FROM sinks WHERE warehouse_id = $1 AND device_token_hash IS NOT NULL`, [w.warehouse_id])).toEqual([{ n: 10 }]);
  expect(await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'sink.device_token' AND target_id = ANY($1)`, [ids])).toEqual([{ n: 10 }]);
  // A sink that has a token replaces it at the limit; another organisation's first device sink is not held back.
  const holder = ids[answers.findIndex((r) => r.status === 201)];
  expect((await gateway().post(`/v1/sinks/${holder}/device-token`).set(bearer(admin.api_key)).send({})).body).toMatchObject({ replaced: true });
  // 20 removals at once: one removes (one audit), the rest find nothing to remove.
  const removals = await Promise.all(Array.from({ length: 20 }, () => gateway().delete(`/v1/sinks/${holder}/device-token`).set(bearer(admin.api_key))));
  expect(removals.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(removals.filter((r) => r.body.removed === true)).toHaveLength(1);
  expect(await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'sink.device_token_remove' AND target_id = $1`, [holder])).toEqual([{ n: 1 }]);
  const other = await deviceSink();
  expect(other.minted.replaced).toBe(false);
}, 60_000);

test('the dry run judges a body against the table schema and stores nothing', async () => {
  const { member, sink } = await deviceSink({ required_field: 'key', pinned_value: 'kitchen-secret' });
  const csv = 'key,id,msg\nkitchen-secret,1,hello\nkitchen-secret,seven,bad\nkitchen-secret,,empty\nkitchen-secret,3\n';
  const res = await gateway().post(`/v1/sinks/${sink.sink_id}/test`).set(bearer(member.api_key)).set('Content-Type', 'text/csv').send(csv);
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    sink_id: sink.sink_id, table: 'events.clicks', format: 'csv', elements: 4, accepted: 1, rejected: 3, device_secret: 'ok',
    device_answer: { status: 202 }, stored: false, stored_lines: ['{"id":"1","msg":"hello"}', '{"id":"seven","msg":"bad"}', '{"id":"","msg":"empty"}'],
    columns: [{ name: 'id', type: 'long', required: true }, { name: 'msg', type: 'string', required: false }],
  });
  expect(res.body.reasons).toEqual([
    { index: 1, stage: 'schema', got: 'object', reason: expect.stringMatching(/^column id \(long\): /) },
    { index: 2, stage: 'schema', got: 'object', reason: 'required column id is empty' },
    { index: 3, stage: 'intake', got: 'csv record', reason: '2 fields where the header has 3' },
  ]);
  const json = await gateway().post(`/v1/sinks/${sink.sink_id}/test`).set(bearer(member.api_key)).set('Content-Type', 'application/json').send('{"key":"wrong","id":1}');
  expect(json.body).toMatchObject({ format: 'json', device_secret: 'mismatch', device_answer: { status: 401, code: 'invalid_device_secret' }, accepted: 0 });
  expect(await sql(`SELECT 1 FROM sink_batches WHERE sink_id = $1`, [sink.sink_id])).toEqual([]);

  const t = (type: string, body: string | Buffer) => gateway().post(`/v1/sinks/${sink.sink_id}/test`).set(bearer(member.api_key)).set('Content-Type', type).send(body);
  expectError(await t('application/json', Buffer.alloc(256 * 1024 + 1, 0x20)), 413, 'body_too_large');
  expectError(await t('application/json', '[1,'), 400, 'unreadable_body');
  expectError(await t('image/png', 'x'), 415, 'unsupported_media_type');
  expectError(await gateway().post('/v1/sinks/snk_nope/test').set(bearer(member.api_key)).set('Content-Type', 'application/json').send('{}'), 404, 'sink_not_found');
});
