import request from 'supertest';
import { bearer, expectError, gateway, uniq } from './control-plane-helpers';
import { sql, stack } from './helpers';
import { sinkSetup } from './sink-helpers';

// Spec: GET /internal/sinks and POST /internal/sinks/{sink_id}/roll — the
// roller's worklist and its reports, on the control plane's own port.

const internal = () => request(stack().services['control-plane'].url);
const secret = () => bearer(stack().bootstrap_secret);
const send = (sinkId: string, key: string, batchId: string, body = '[{"id":1}]') =>
  request(stack().base_url).post(`/v1/sinks/${sinkId}`).set(bearer(key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(body);

test('the worklist shows waiting batches; a roll report commits them, records the roll and can disable the sink', async () => {
  const s = await sinkSetup();
  const created = await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `r${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 });
  const sink = created.body;
  await send(sink.sink_id, sink.send_key, 'b1', '[{"id":1},{"id":2}]').expect(202);
  await send(sink.sink_id, sink.send_key, 'b2').expect(202);

  expectError(await internal().get('/internal/sinks'), 401, 'unauthorized');
  expectError(await gateway().get('/internal/sinks').set(secret()), 404, 'not_found');
  await new Promise((r) => setTimeout(r, 1100));
  const work = await internal().get('/internal/sinks').set(secret());
  expect(work.status).toBe(200);
  const item = work.body.sinks.find((x: { sink_id: string }) => x.sink_id === sink.sink_id);
  expect(item).toMatchObject({ warehouse_id: s.w.warehouse_id, table: 'events.clicks', state: 'active', pending: { batches: 2 }, due: true, due_reason: 'inactivity_seconds', table_changes_applied: false });

  const report = await internal().post(`/internal/sinks/${sink.sink_id}/roll`).set(secret())
    .send({ batch_ids: ['b1', 'b2', 'unknown'], snapshot_id: '9223372036854775807', rows: 3, rejected_rows: 1, seconds: 0.4, reject_file: `_sink/${sink.sink_id}/_rejects/x.ndjson`, table_changes_applied: true });
  expect(report.body).toEqual({ sink_id: sink.sink_id, committed: 2, discarded: 0, pruned: 0, state: 'active' });
  const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
  expect(got.body).toMatchObject({
    lag: { batches_waiting: 0 }, rejects: { rows: 1, files: 1 }, table_changes: { applied: true }, roll: { count: 1 },
    last_roll: { batches: 2, rows: 3, rejected_rows: 1, snapshot_id: '9223372036854775807', seconds: 0.4 },
  });
  const dup = await send(sink.sink_id, sink.send_key, 'b1');
  expect(dup.body).toMatchObject({ duplicate: true, state: 'committed' });

  await internal().post(`/internal/sinks/${sink.sink_id}/roll`).set(secret()).send({ disabled_reason: 'table_missing' }).expect(200);
  expectError(await send(sink.sink_id, sink.send_key, 'b3'), 409, 'sink_disabled');
  expect((await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key))).body).toMatchObject({ state: 'disabled', disabled_reason: 'table_missing' });
  expectError(await internal().post('/internal/sinks/snk_nope/roll').set(secret()).send({}), 404, 'sink_not_found');
}, 60_000);

test('a deleted sink\'s waiting batches are listed for discarding', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `d${uniq()}`, table: 'events.clicks', warehouse: s.w.name })).body;
  await send(sink.sink_id, sink.send_key, 'w1').expect(202);
  const deleted = await gateway().delete(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
  expect(deleted.body.pending_batches_discarded).toBe(1);
  const work = await internal().get('/internal/sinks').set(secret());
  const listed = work.body.sinks.find((x: { sink_id: string }) => x.sink_id === sink.sink_id);
  if (listed) {
    expect(listed).toMatchObject({ state: 'deleted', due: true, due_reason: 'deleted', pending: { batches: 1 } });
    const report = await internal().post(`/internal/sinks/${sink.sink_id}/roll`).set(secret()).send({ discarded_batch_ids: ['w1'] });
    expect(report.body).toMatchObject({ committed: 0, discarded: 1, state: 'deleted' });
  }
  // Listed or not, the waiting batch ends discarded: by this report, or by the stack's own roller when it got there first.
  expect(await sql(`SELECT state FROM sink_batches WHERE sink_id = $1`, [sink.sink_id])).toEqual([{ state: 'discarded' }]);
  expect((await internal().get('/internal/sinks').set(secret())).body.sinks.find((x: { sink_id: string }) => x.sink_id === sink.sink_id)).toBeUndefined();
});
