import request from 'supertest';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { appendRows, icebergClient, type TableRef } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, uniq } from './control-plane-helpers';
import { stack } from './helpers';
import { sinkSetup } from './sink-helpers';

// Issue 28: maintenance nobody asked for, racing live writers. A sink rolls
// every couple of seconds and an engine appends beside it; the catalog's
// commit path sees the table cross the small-files rule and queues a run;
// the compaction commits between the rolls (rebuilt on each new head when a
// roll got in first) — and every row sent or appended is in the table
// exactly once, read back with icebird.

const send = (sinkId: string, key: string, batchId: string, rows: unknown[]) =>
  request(stack().base_url).post(`/v1/sinks/${sinkId}`).set(bearer(key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(JSON.stringify(rows));

test('a live sink and an engine append while the table is compacted: every row exactly once, the run queued by a commit and explained', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `live${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 })).body;
  const credential = (await gateway().get('/v1/connection').query({ warehouse: s.w.warehouse_id, level: 'write' }).set(bearer(s.admin.api_key)).expect(200)).body.catalog_credential;
  const ref: TableRef = { warehouseId: s.w.warehouse_id, bucket: s.w.bucket, token: await token(credential.client_id, credential.client_secret), namespace: 'events', table: 'clicks' };
  const health = () => gateway().get('/v1/table/maintenance').query({ warehouse: s.w.warehouse_id, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));

  const expected: number[] = [];
  let engineAppends = 0;
  const deadline = Date.now() + 150_000;
  for (let i = 0; Date.now() < deadline; i++) {
    const ids = Array.from({ length: 5 }, (_, j) => 10_000 + i * 5 + j);
    await send(sink.sink_id, sink.send_key, `b${i}`, ids.map((id) => ({ id, msg: `sink ${id}` }))).expect(202);
    expected.push(...ids);
    if (i % 3 === 1) {
      // The engine loses races to the rolls and the compaction now and then: it rebuilds on the new head.
      await appendRows(ref, [{ id: BigInt(i), msg: `engine ${i}` }], 20, { lossless: true });
      expected.push(i);
      engineAppends++;
    }
    await new Promise((r) => setTimeout(r, 1500));
    // Enough rolls for the small-files rule, and a compaction done by the time the writers stop.
    if (i >= 20) {
      const runs = (await health()).body.runs as Array<Record<string, any>>;
      if (runs.some((r) => r.kind === 'compact' && r.status !== 'running' && r.status !== 'skipped' && r.status !== 'failed')) break;
    }
  }
  expect(engineAppends).toBeGreaterThan(5);

  // The sink drains; then the table holds every row once.
  await until('the sink to drain', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.lag.batches_waiting === 0 ? got.body : null;
  }, 60, 500);
  const loaded = await icebergClient(ref.warehouseId, ref.token).loadTable({ namespace: ['events'], name: 'clicks' });
  const rows = await readWithIcebird(stack().s3_url, s.w.bucket, loaded as never);
  expect(rows.map((r: any) => Number(r.id)).sort((a, b) => a - b)).toEqual([...expected].sort((a, b) => a - b));

  // Why the run happened and what it did, in the health view.
  const h = (await health()).body;
  const compacted = (h.runs as Array<Record<string, any>>).find((r) => r.kind === 'compact' && (r.status === 'done' || r.status === 'retried_after_conflict'))!;
  expect(compacted.trigger).toMatchObject({ type: 'rule', detail: expect.stringMatching(/^compact: \d+ data files averaging [\d.]+ MB, under 96 MB.*\(seen at a commit( by .*)?\)$/) });
  expect(compacted.reason).toMatch(/files under 96 MB in partition \(none\): \d+ files .* rewritten in 1 groups of at most 128 MB/);
  expect(compacted.after.data_files).toBeLessThan(compacted.before.data_files);
  expect(h.health.small_files).toEqual(expect.any(Number));
}, 300_000);
