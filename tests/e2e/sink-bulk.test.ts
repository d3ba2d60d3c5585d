// Issue 6's acceptance run: 200 batches (180 through the send route, 20 from
// a device as NDJSON, CSV or JSON), 100,000 rows, some batches sent twice,
// some rows that do not fit the schema, a few non-object elements —
// and exactly the valid rows, once each, in the table: by GET /v1/table, by
// DuckDB over the data files, and by icebird over the table's metadata.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import request from 'supertest';
import { readWithIcebird } from '../support/icebird';
import { until } from '../support/poll';
import { keyOf, vendedS3 } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, uniq } from './control-plane-helpers';
import { stack } from './helpers';
import { sinkSetup } from './sink-helpers';
import { blobReader } from './sink-objects';

const dir = mkdtempSync(join(tmpdir(), 'floe-sink-bulk-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('200 batches, 100,000 rows: every valid row exactly once, rejects with reasons', async () => {
  const s = await sinkSetup();
  const sink = (await gateway().post('/v1/sinks').set(bearer(s.admin.api_key)).send({ name: `bulk${uniq()}`, table: 'events.clicks', warehouse: s.w.name, inactivity_seconds: 2 })).body;
  const expected = new Set<number>();
  let misfits = 0;
  let nonObjects = 0;
  const post = (batchId: string, body: string) => request(stack().base_url).post(`/v1/sinks/${sink.sink_id}`)
    .set(bearer(sink.send_key)).set('Content-Type', 'application/json').set('Idempotency-Key', batchId).send(body);
  // Every tenth batch comes from a device instead: NDJSON, CSV or a JSON array on {ingest_url}/d/<token>.
  const device = (await gateway().post(`/v1/sinks/${sink.sink_id}/device-token`).set(bearer(s.admin.api_key)).send({})).body;
  const devicePost = (type: string, body: string) => request(device.device_url.replace(/\/d\/.*$/, '')).post(new URL(device.device_url).pathname).set('Content-Type', type).send(body);
  const deviceBody = (batch: number, rows: Array<{ id: unknown; msg: string }>): [string, string] => {
    switch (batch % 3) {
      case 0: return ['application/x-ndjson', [...rows.map((r) => JSON.stringify(r)), ...(batch % 50 === 5 ? ['42'] : [])].join('\n')];
      case 1: return ['text/csv', ['id,msg', ...rows.map((r) => `${r.id},${r.msg}`), ...(batch % 50 === 5 ? ['no-msg'] : [])].join('\n')];
      default: return ['application/json', JSON.stringify([...rows, ...(batch % 50 === 5 ? ['text'] : [])])];
    }
  };
  for (let b = 0; b < 200; b += 10) {
    await Promise.all(Array.from({ length: 10 }, async (_, k) => {
      const batch = b + k;
      const elements: Array<{ id: unknown; msg: string }> = [];
      for (let i = 0; i < 500; i++) {
        const id = batch * 500 + i;
        if (i % 97 === 0) { elements.push({ id: `not-a-number-${id}`, msg: 'misfit' }); misfits++; continue; }
        elements.push({ id, msg: `m${id}` });
        expected.add(id);
      }
      if (k === 5) {
        const [type, body] = deviceBody(batch, elements);
        if (batch % 50 === 5) nonObjects += 1;
        const res = await devicePost(type, body);
        expect(res.status).toBe(202);
        // An identical post again is the duplicate it is.
        if (batch % 40 === 5) expect((await devicePost(type, body)).body).toMatchObject({ duplicate: true, batch_id: res.body.batch_id });
        return;
      }
      const withOthers: unknown[] = [...elements];
      if (batch % 50 === 0) { withOthers.push(42, 'text'); nonObjects += 2; }
      const res = await post(`batch-${batch}`, JSON.stringify(withOthers));
      expect(res.status).toBe(202);
      // Some batch ids are sent twice; the second answer is the duplicate, and nothing is written.
      if (batch % 20 === 0) expect((await post(`batch-${batch}`, JSON.stringify([{ id: -1 }]))).body).toMatchObject({ duplicate: true });
    }));
  }
  expect(expected.size + misfits).toBe(100_000);

  const done = await until('every batch to roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(s.admin.api_key));
    return got.body.lag.batches_waiting === 0 && got.body.received.batches === 200 ? got.body : null;
  }, 120, 1000);
  expect(done).toMatchObject({ received: { batches: 200, device_batches: 20, rows: 100_000, rejected_elements: nonObjects }, rejects: { rows: misfits } });

  // Every misfit is in the sink's reject files, with its reason and its text.
  const rejects: Array<{ batch_id: string; reason: string; raw: string }> = [];
  const store = await blobReader(s.w.warehouse_id);
  const rejectFiles = await store.send(new ListObjectsV2Command({ Bucket: s.w.blob_bucket, Prefix: done.rejects.prefix }));
  for (const o of rejectFiles.Contents ?? []) {
    const text = await (await store.send(new GetObjectCommand({ Bucket: s.w.blob_bucket, Key: o.Key! }))).Body!.transformToString();
    rejects.push(...text.trim().split('\n').map((l) => JSON.parse(l)));
  }
  expect(rejects).toHaveLength(misfits);
  for (const r of rejects) {
    expect(r.reason).toMatch(/^column id \(long\): /);
    expect(r.raw).toContain('not-a-number-');
  }
  expect(rejects.filter((r) => r.batch_id.startsWith('d_')).length).toBe(20 * 6);

  const table = await gateway().get('/v1/table').query({ warehouse: s.w.name, namespace: 'events', name: 'clicks' }).set(bearer(s.admin.api_key));
  expect(table.body).toMatchObject({ rows: expected.size, rows_source: 'snapshot_summary', rows_is_exact: true });

  // DuckDB over the data files themselves.
  const conn = await gateway().get('/v1/connection').query({ warehouse: s.w.name }).set(bearer(s.admin.api_key));
  const catalogToken = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const { s3, location, metadata } = await vendedS3({ warehouseId: s.w.warehouse_id, bucket: s.w.bucket, token: catalogToken, namespace: 'events', table: 'clicks' });
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: s.w.bucket, Prefix: `${keyOf(s.w.bucket, location)}/data/` }));
  const files: string[] = [];
  for (const o of listed.Contents ?? []) {
    const out = await s3.send(new GetObjectCommand({ Bucket: s.w.bucket, Key: o.Key! }));
    const local = join(dir, `${files.length}.parquet`);
    writeFileSync(local, await out.Body!.transformToByteArray());
    files.push(local);
  }
  expect(files.length).toBe(Number(table.body.data_files));
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  const counted = (await duck.runAndReadAll(`SELECT count(*) AS n, count(DISTINCT id) AS d, min(id) AS lo, max(id) AS hi, count(__ingest_ts) AS stamped FROM read_parquet([${files.map((f) => `'${f}'`).join(',')}])`)).getRowObjects()[0];
  expect([Number(counted.n), Number(counted.d), Number(counted.stamped)]).toEqual([expected.size, expected.size, expected.size]);
  expect([Number(counted.lo), Number(counted.hi)]).toEqual([Math.min(...expected), Math.max(...expected)]);

  // icebird over the table's metadata.
  const rows = await readWithIcebird(stack().s3_url, s.w.bucket, metadata);
  expect(rows.length).toBe(expected.size);
  expect(new Set(rows.map((r: any) => Number(r.id))).size).toBe(expected.size);
}, 240_000);
