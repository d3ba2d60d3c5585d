import request from 'supertest';
import { bearer, gateway, uniq } from './control-plane-helpers';
import { stack } from './helpers';
import { randomBytes } from 'node:crypto';
import { appendRows, dataFilesOf, vendedS3 } from './append-helpers';
import { readWithIcebird } from '../support/icebird';
import { token } from './catalog-helpers';
import { sinkSetup } from './sink-helpers';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { blobReader } from './sink-objects';
import { until } from '../support/poll';

// The roller: waiting batches become one append through the catalog; rows
// that do not fit the schema go to a reject file; a repeated batch is
// appended once.

const send = (sinkId: string, key: string, batchId: string, body: string) =>
  request(stack().base_url).post(`/v1/sinks/${sinkId}`).set(bearer(key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(body);

test('batches roll into the table once; misfits are rejected with reasons; __ingest_ts is added', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `r${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 })).body;
  await send(sink.sink_id, sink.send_key, 'a', '[{"id":1,"msg":"one"},{"id":2},{"msg":"no id"}]').expect(202);
  await send(sink.sink_id, sink.send_key, 'b', '[{"id":3,"msg":"three"},{"id":"x"}]').expect(202);
  await send(sink.sink_id, sink.send_key, 'a', '[{"id":99}]').expect(200);

  const rolled = await until('the roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.lag.batches_waiting === 0 && got.body.last_roll ? got.body : null;
  });
  expect(rolled).toMatchObject({ last_roll: { batches: 2, rows: 3, rejected_rows: 2 }, rejects: { rows: 2, files: 1 }, table_changes: { applied: true } });
  // The sender sees why without reading reject files: the roll's reasons counted, its first misfits with their batch ids.
  expect(rolled.rejects.recent).toEqual([{
    at: rolled.last_roll.at, rows: 2, snapshot_id: rolled.last_roll.snapshot_id, file: expect.stringContaining(rolled.rejects.prefix),
    reasons: expect.any(Object),
    examples: [
      { batch_id: 'a', line: 3, reason: 'required column id is missing', raw: '{"msg":"no id"}' },
      { batch_id: 'b', line: 2, reason: expect.stringMatching(/^column id \(long\)/), raw: '{"id":"x"}' },
    ],
  }]);
  const reasons = Object.entries(rolled.rejects.recent[0].reasons).sort(([a], [b]) => (a < b ? -1 : 1));
  expect(reasons).toEqual([[expect.stringMatching(/^column id \(long\)/), 1], ['required column id is missing', 1]]);
  expect(rolled.freshness).toEqual({
    last_roll_at: rolled.last_roll.at, oldest_pending_age_seconds: 0, batches_committed_last_hour: 2, send_to_commit_p99_seconds_last_hour: expect.any(Number),
  });
  expect(rolled.freshness.send_to_commit_p99_seconds_last_hour).toBeGreaterThan(0);
  expect(rolled.freshness.send_to_commit_p99_seconds_last_hour).toBeLessThan(60);
  const table = await gateway().get('/v1/table').query({ warehouse: s.w.name, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));
  expect(table.body).toMatchObject({ rows: 3, rows_source: 'snapshot_summary', data_files: 1, snapshots: 1 });
  expect(table.body.schema.map((f: { name: string }) => f.name)).toEqual(['id', 'msg', '__ingest_ts']);
  expect(table.body.properties).toMatchObject({ 'write.metadata.delete-after-commit.enabled': 'true' });
  expect(String(table.body.current_snapshot_id)).toBe(String(rolled.last_roll.snapshot_id));

  // The reject file, in the blob bucket under the sink's prefix, names each misfit and why.
  const s3 = await blobReader(s.w.warehouse_id);
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: s.w.blob_bucket, Prefix: rolled.rejects.prefix }));
  expect(listed.Contents).toHaveLength(1);
  const text = await (await s3.send(new GetObjectCommand({ Bucket: s.w.blob_bucket, Key: listed.Contents![0].Key! }))).Body!.transformToString();
  expect(text.trim().split('\n').map((l) => JSON.parse(l))).toEqual([
    { batch_id: 'a', line: 3, reason: 'required column id is missing', raw: '{"msg":"no id"}' },
    { batch_id: 'b', line: 2, reason: expect.stringMatching(/^column id \(long\)/), raw: '{"id":"x"}' },
  ]);

  // A second round appends on top; the duplicate batch id is still refused.
  await send(sink.sink_id, sink.send_key, 'c', '[{"id":4}]').expect(202);
  await until('the second roll', async () => {
    const t = await gateway().get('/v1/table').query({ warehouse: s.w.name, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));
    return t.body.rows === 4 ? t.body : null;
  });
  expect((await send(sink.sink_id, sink.send_key, 'b', '[{"id":5}]')).body).toMatchObject({ duplicate: true, state: 'committed' });
}, 90_000);

test('a roll larger than the table\'s target file size writes several files near it, in one append: every row once, every batch\'s misfit rejected', async () => {
  const s = await sinkSetup();
  const conn = await gateway().get('/v1/connection').query({ warehouse: s.w.name }).set(bearer(s.admin.api_key));
  const catalogToken = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const target = 512 * 1024;
  await request(stack().catalog_url).post(`/v1/${s.w.warehouse_id}/namespaces/events/tables/clicks`).set(bearer(catalogToken))
    .send({ requirements: [], updates: [{ action: 'set-properties', updates: { 'write.target-file-size-bytes': String(target) } }] }).expect(200);
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `l${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 3 })).body;
  // Five batches of about 1 MiB of rows that do not compress (random text), each with one misfit; sent at once so they roll together.
  const batch = (b: number) => {
    const rows = Array.from({ length: 10_000 }, (_, i) => `{"id":${b * 100_000 + i},"msg":"${randomBytes(40).toString('base64')}"}`);
    rows.splice(500, 0, `{"id":"not a number ${b}"}`);
    return `[${rows.join(',')}]`;
  };
  await Promise.all([0, 1, 2, 3, 4].map((b) => send(sink.sink_id, sink.send_key, `big-${b}`, batch(b)).expect(202)));
  const rolled = await until('the roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.lag.batches_waiting === 0 && got.body.last_roll ? got.body : null;
  }, 90);
  expect(rolled.last_roll).toMatchObject({ batches: 5, rows: 50_000, rejected_rows: 5 });
  const table = await gateway().get('/v1/table').query({ warehouse: s.w.name, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));
  expect(table.body).toMatchObject({ rows: 50_000, snapshots: 1 });

  // The append's data files, from its manifest: several, each near the target (a file ends after the row group that reaches it).
  const { s3, metadata } = await vendedS3({ warehouseId: s.w.warehouse_id, bucket: s.w.bucket, token: catalogToken, namespace: 'events', table: 'clicks' });
  const sizes = (await dataFilesOf(s3, s.w.bucket, metadata)).map((f) => Number(f.file_size_in_bytes));
  expect(sizes.length).toBe(Number(table.body.data_files));
  expect(sizes.length).toBeGreaterThanOrEqual(3);
  for (const size of sizes.slice(0, -1)) {
    expect(size).toBeGreaterThanOrEqual(target);
    expect(size).toBeLessThan(1.5 * target);
  }
  const rows = await readWithIcebird(stack().s3_url, s.w.bucket, metadata);
  expect(new Set(rows.map((r: any) => Number(r.id))).size).toBe(50_000);

  const store = await blobReader(s.w.warehouse_id);
  const listed = await store.send(new ListObjectsV2Command({ Bucket: s.w.blob_bucket, Prefix: rolled.rejects.prefix }));
  const text = await (await store.send(new GetObjectCommand({ Bucket: s.w.blob_bucket, Key: listed.Contents![0].Key! }))).Body!.transformToString();
  expect(text.trim().split('\n').map((l) => JSON.parse(l)).map((r) => [r.batch_id, r.line]).sort()).toEqual([0, 1, 2, 3, 4].map((b) => [`big-${b}`, 501]));
}, 120_000);

test('a sink whose table disappeared is disabled; sends answer sink_disabled', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `g${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 })).body;
  const conn = await gateway().get('/v1/connection').query({ warehouse: s.w.name }).set(bearer(s.admin.api_key));
  const tokenRes = await request(stack().catalog_url).post('/v1/oauth/tokens').type('form')
    .send({ grant_type: 'client_credentials', client_id: conn.body.catalog_credential.client_id, client_secret: conn.body.catalog_credential.client_secret });
  await request(stack().catalog_url).delete(`/v1/${s.w.warehouse_id}/namespaces/events/tables/clicks`).set(bearer(tokenRes.body.access_token)).expect(204);
  await send(sink.sink_id, sink.send_key, 'x', '[{"id":1}]').expect(202);
  await until('the sink to be disabled', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.state === 'disabled' ? got.body : null;
  });
  const refused = await send(sink.sink_id, sink.send_key, 'y', '[{"id":1}]');
  expect([refused.status, refused.body.error.code]).toEqual([409, 'sink_disabled']);
}, 60_000);

test('an external writer appending through the REST route while the roller runs loses nothing', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `x${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 1 })).body;
  const conn = await gateway().get('/v1/connection').query({ warehouse: s.w.name }).set(bearer(s.admin.api_key));
  const catalogToken = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const ref = { warehouseId: s.w.warehouse_id, bucket: s.w.bucket, token: catalogToken, namespace: 'events', table: 'clicks' };
  // The first roll adds __ingest_ts, so the external writer writes with whatever schema is current when it loads.
  const sends = (async () => {
    for (let b = 0; b < 10; b++) {
      await send(sink.sink_id, sink.send_key, `s${b}`, JSON.stringify(Array.from({ length: 10 }, (_, i) => ({ id: 1000 + b * 10 + i })))).expect(202);
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const external = (async () => {
    // Plain iceberg-js, ids as JSON numbers: the roller mints ids under 2^53, so its heads come back exact in a requirement.
    for (let i = 0; i < 8; i++) await appendRows(ref, [{ id: BigInt(i), msg: `ext${i}` }], 100);
  })();
  await Promise.all([sends, external]);
  const table = await until('every row', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    if (got.body.lag.batches_waiting !== 0) return null;
    const t = await gateway().get('/v1/table').query({ warehouse: s.w.name, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));
    return t.body;
  }, 60);
  expect(table.rows).toBe(100 + 8);
  const sinkNow = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
  expect(sinkNow.body).toMatchObject({ state: 'active', received: { batches: 10, rows: 100 }, rejects: { rows: 0 } });
}, 120_000);
