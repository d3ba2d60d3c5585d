import request from 'supertest';
import { bearer, expectError, gateway, uniq } from './control-plane-helpers';
import { db, stack } from './helpers';
import { sinkSetup } from './sink-helpers';
import { objectText } from './sink-objects';

// Spec: POST /v1/sinks/{sink_id} — the send route, through the public gateway
// and on {ingest_url} itself.

async function newSink() {
  const s = await sinkSetup();
  const created = await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `s${uniq()}`, table: 'events.clicks', warehouse: s.w.name });
  expect(created.status).toBe(201);
  return { ...s, sink: created.body as { sink_id: string; send_key: string } };
}

const send = (sinkId: string, key: string, batchId: string | null, body: string, base = stack().base_url) => {
  const r = request(base).post(`/v1/sinks/${sinkId}`).set(bearer(key)).set('Content-Type', 'application/json');
  return (batchId === null ? r : r.set('Idempotency-Key', batchId)).send(body);
};

test('a batch is stored unchanged as NDJSON once; non-objects are rejected with reasons; a repeat is a duplicate', async () => {
  const { w, sink, admin } = await newSink();
  const body = '[{"id": 12345678901234567890, "msg": "a,b"}, 7, {"id":2,"msg":null}, "x", {\n "id": 3\n}]';
  const first = await send(sink.sink_id, sink.send_key, 'b-1', body);
  expect(first.status).toBe(202);
  expect(first.body).toMatchObject({
    accepted: 3, rejected: 2, batch_id: 'b-1', sink_id: sink.sink_id, state: 'pending',
    reasons: [{ index: 1, reason: 'not an object', got: 'number' }, { index: 3, reason: 'not an object', got: 'string' }],
  });
  const text = await objectText(w.warehouse_id, w.blob_bucket, `_sink/${sink.sink_id}/b-1.ndjson`);
  expect(text).toBe('{"id": 12345678901234567890, "msg": "a,b"}\n{"id":2,"msg":null}\n{"id":3}\n');
  expect(first.body.bytes).toBe(Buffer.byteLength(text));

  const again = await send(sink.sink_id, sink.send_key, 'b-1', '[{"different": true}]');
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ duplicate: true, batch_id: 'b-1', accepted: 3, rejected: 2, bytes: first.body.bytes, state: 'pending' });
  expect(await objectText(w.warehouse_id, w.blob_bucket, `_sink/${sink.sink_id}/b-1.ndjson`)).toBe(text);

  // Straight to {ingest_url} works the same.
  const direct = await send(sink.sink_id, sink.send_key, 'b-2', '[{"id":4}]', stack().ingest_url);
  expect(direct.status).toBe(202);
  const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key));
  expect(got.body).toMatchObject({ lag: { batches_waiting: 2 }, received: { batches: 2, rows: 4, rejected_elements: 2 } });
});

test('every refusal of the send route', async () => {
  const { sink, admin, w } = await newSink();
  const ok = '[{"a":1}]';
  expectError(await request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`).set('Content-Type', 'application/json').set('Idempotency-Key', 'x').send(ok), 401, 'invalid_key');
  expectError(await send(sink.sink_id, `${sink.send_key.slice(0, -2)}zz`, 'x', ok), 401, 'invalid_key');
  expectError(await send('snk_other', sink.send_key, 'x', ok), 401, 'invalid_key');
  expectError(await send(sink.sink_id, admin.api_key, 'x', ok), 403, 'send_only');
  const jwt = (await gateway().post('/v1/tokens').send({ api_key: admin.api_key })).body.access_token;
  expectError(await send(sink.sink_id, jwt, 'x', ok), 403, 'send_only');
  expectError(await send(sink.sink_id, sink.send_key, null, ok), 400, 'missing_idempotency_key');
  expectError(await send(sink.sink_id, sink.send_key, 'bad id!', ok), 400, 'invalid_batch_id');
  expectError(await send(sink.sink_id, sink.send_key, 'x'.repeat(129), ok), 400, 'invalid_batch_id');
  expect(expectError(await send(sink.sink_id, sink.send_key, 'o', '{"a":1}'), 400, 'not_an_array').got).toBe('object');
  expectError(await send(sink.sink_id, sink.send_key, 'j', '[{"a":'), 400, 'not_an_array');
  expectError(await send(sink.sink_id, sink.send_key, 'e', '[]'), 400, 'empty_batch');
  const big = `[${`{"pad":"${'x'.repeat(1000)}"},`.repeat(17_000)}{}]`;
  expect(Buffer.byteLength(big)).toBeGreaterThan(16 * 1024 * 1024);
  const tooBig = await send(sink.sink_id, sink.send_key, 'big', big);
  expect(expectError(tooBig, 413, 'batch_too_large').limit).toBe(16 * 1024 * 1024);

  const pool = db();
  try {
    await pool.query(`UPDATE sinks SET state = 'disabled', disabled_reason = 'table_missing' WHERE id = $1`, [sink.sink_id]);
    expectError(await send(sink.sink_id, sink.send_key, 'd', ok), 409, 'sink_disabled');
    await pool.query(`UPDATE sinks SET state = 'active', disabled_reason = NULL WHERE id = $1`, [sink.sink_id]);
    await pool.query(`INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', 6000000000, 0, 1, 0, true)`, [w.warehouse_id]);
    expect(expectError(await send(sink.sink_id, sink.send_key, 'q', ok), 409, 'quota_exceeded')).toMatchObject({ current: 6_000_000_000, limit_value: 5_368_709_120 });
    await pool.query(`DELETE FROM usage_samples WHERE warehouse_id = $1`, [w.warehouse_id]);
    // The store refusing the PUT (here: the blob bucket is not there): 502, no batch recorded, the same batch id later succeeds.
    await pool.query(`UPDATE warehouses SET blob_bucket = $2 WHERE id = $1`, [w.warehouse_id, `${w.blob_bucket}-gone`]);
    const failed = await send(sink.sink_id, sink.send_key, 'outage', ok);
    await pool.query(`UPDATE warehouses SET blob_bucket = $2 WHERE id = $1`, [w.warehouse_id, w.blob_bucket]);
    expect(expectError(failed, 502, 'storage_error')).toMatchObject({ retry_after_seconds: 2 });
    expect((await pool.query(`SELECT 1 FROM sink_batches WHERE sink_id = $1 AND batch_id = 'outage'`, [sink.sink_id])).rows).toEqual([]);
    expect((await send(sink.sink_id, sink.send_key, 'outage', ok)).status).toBe(202);
  } finally {
    await pool.end();
  }
  // Deleting the sink refuses its key at once.
  await gateway().delete(`/v1/sinks/${sink.sink_id}`).set(bearer(admin.api_key)).expect(202);
  expectError(await send(sink.sink_id, sink.send_key, 'after', ok), 404, 'sink_not_found');
}, 60_000);

test('a batch just under 16 MiB is accepted through the gateway', async () => {
  const { sink } = await newSink();
  const element = `{"pad":"${'y'.repeat(1000)}"}`;
  const n = Math.floor((16 * 1024 * 1024 - 2) / (element.length + 1));
  const body = `[${Array.from({ length: n }, () => element).join(',')}]`;
  expect(Buffer.byteLength(body)).toBeLessThanOrEqual(16 * 1024 * 1024);
  const res = await send(sink.sink_id, sink.send_key, 'large', body);
  expect(res.status).toBe(202);
  expect(res.body.accepted).toBe(n);
}, 60_000);
