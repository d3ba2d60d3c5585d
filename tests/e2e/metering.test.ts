// The metering worker end to end, with the e2e stack's shortened intervals
// (tests/e2e/global-setup.ts: a sweep every 20 s, the first sample 4 s after
// creation): a new catalog is `unmetered`, then carries its `creation`
// sample; data written with vended credentials shows in the next sweep's
// sample; traffic appears once two worker samples carry the usage log's
// counters; over the organisation's storage limit the next pass freezes the
// buckets (the store refuses a PUT, GETs work, read_only_since is set) but
// a public catalog's table bucket (the public tier), and back under it lifts
// them; a measure job's report sent again (a retry) rewrites its one sample.
import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { warehouseTraffic } from '@floe/db/usage';
import { sweepMeasureJobId, type UsageReport } from '@floe/queues';
import { RgwStorage } from '@floe/storage';
import request from 'supertest';
import { cephInfo } from '../../scripts/lib/ceph';
import { appendRows, keyOf, vendedS3, type TableRef } from './append-helpers';
import { token } from './catalog-helpers';
import { newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { bearer, db, expectError, gateway, sql, stack } from './helpers';

const FREE_STORAGE_BYTES = 5_368_709_120;
const PUBLIC_STORAGE_BYTES = 50 * 1024 ** 3;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'note', required: false, type: 'string' }] };

let admin: { api_key: string };
let orgId: string;
let w: Awaited<ReturnType<typeof newWarehouse>>;
let ref: TableRef;
let store: RgwStorage;

const stored = async () => {
  const res = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key));
  expect(res.status).toBe(200);
  return res.body.stored;
};

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, seconds: number): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  let last: unknown;
  while (Date.now() < deadline) {
    last = await probe();
    if (last) return last as T;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`${what} did not happen within ${seconds} s (last: ${JSON.stringify(last)})`);
}

const readOnlySince = async () => (await sql<{ read_only_since: Date | null }>(`SELECT read_only_since FROM warehouses WHERE id = $1`, [w.warehouse_id]))[0].read_only_since;

beforeAll(async () => {
  const info = cephInfo();
  if (!info) throw new Error('no Ceph admin.json: the e2e stack starts one');
  store = new RgwStorage({ endpoint: info.endpoint, region: info.region, adminAccessKey: info.accessKey, adminSecretKey: info.secretKey });
  const o = await newOrgWithAdmin();
  admin = o.admin;
  orgId = o.org.org_id;
  w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id, `metered_${Date.now().toString(36)}`);
}, 60_000);

afterAll(async () => {
  if (orgId) await sql(`DELETE FROM org_limits WHERE org_id = $1`, [orgId]);
});

test('a new catalog is unmetered, both buckets carry the hard quota at the storage limit, and the first sample (source creation) follows', async () => {
  const first = await stored();
  expect(first).toMatchObject({ unmetered: true, bytes: null, measured_at: null, source: null });
  for (const bucket of [w.bucket, w.blob_bucket]) expect(await store.getBucketQuota(bucket)).toEqual({ enabled: true, maxBytes: FREE_STORAGE_BYTES });

  const s = await until('the creation sample', async () => { const x = await stored(); return x.source === 'creation' && x; }, 30);
  expect(s).toMatchObject({ unmetered: false, bytes: 0, table_bytes: 0, blob_bytes: 0, objects: 0, complete: true, measuring: false });
  // A sweep sample is stale after two sweep intervals (20 s each here).
  expect(Date.parse(s.stale_after) - Date.parse(s.measured_at)).toBe(40_000);
}, 60_000);

test('data written with vended credentials shows in the next sweep\'s sample', async () => {
  const created = await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'lake', name: 'events', schema });
  expect(created.status).toBe(201);
  const conn = await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key));
  ref = { warehouseId: w.warehouse_id, bucket: w.bucket, token: await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret), namespace: 'lake', table: 'events' };
  await appendRows(ref, [{ id: 1n, note: 'a'.repeat(2000) }, { id: 2n, note: null }]);
  const written = Date.now();
  const listed = await store.measureByListing(w.bucket);
  expect(listed.bytes).toBeGreaterThan(0);

  const s = await until('a sweep sample after the write', async () => {
    const x = await stored();
    return x.source === 'sweep' && Date.parse(x.measured_at) > written && x;
  }, 60);
  // RGW's own counters, not a listing, and they agree with one.
  expect(s.table_bytes).toBe(listed.bytes);
  expect(s.objects).toBe(listed.objects);
  // The usage route shows the same footprint, with when it was measured and until when it holds.
  const usage = await gateway().get('/v1/usage').set(bearer(admin.api_key));
  const mine = usage.body.warehouses.find((x: { warehouse_id: string }) => x.warehouse_id === w.warehouse_id);
  expect(mine).toMatchObject({ unmetered: false, footprint: { table: { bytes: expect.any(Number) }, source: 'sweep', measured_at: expect.any(String), stale_after: expect.any(String) } });
  expect(mine.footprint.table.bytes).toBeGreaterThanOrEqual(listed.bytes);
}, 90_000);

test('traffic is null with a note until two consecutive worker samples carry counters, then counts the writes per UTC day', async () => {
  const samples = await sql<{ source: string; traffic_counted: boolean }>(
    `SELECT source, traffic_counted FROM usage_samples WHERE warehouse_id = $1 ORDER BY measured_at DESC`, [w.warehouse_id]);
  expect(samples.length).toBeGreaterThanOrEqual(2);
  const t = await until('traffic with requests', async () => {
    const x = await warehouseTraffic(db(), w.warehouse_id, 7);
    return x.traffic && x.traffic.some((d) => d.requests > 0 && d.bytes_in > 0) && x;
  }, 60);
  expect(t.traffic_note).toBeNull();
  const today = new Date().toISOString().slice(0, 10);
  expect(t.traffic!.map((d) => d.day)).toContain(today);
  // The usage route shows the same counters, per UTC day and in the window's totals.
  const usage = await gateway().get('/v1/usage').query({ days: 2 }).set(bearer(admin.api_key));
  expect(usage.status).toBe(200);
  const mine = usage.body.warehouses.find((x: { warehouse_id: string }) => x.warehouse_id === w.warehouse_id);
  const todayRow = mine.days.find((d: { day: string }) => d.day === today);
  expect(todayRow.requests).toBeGreaterThan(0);
  expect(todayRow.bytes_in).toBeGreaterThan(0);
  expect(mine.traffic).toEqual({ requests: expect.any(Number), bytes_in: expect.any(Number), bytes_out: expect.any(Number) });
  expect(mine.traffic_note).toBeUndefined();

  // A catalog with fewer than two worker samples shows none.
  const fresh = await newWarehouse(admin.api_key, w.project_id, `unsampled_${Date.now().toString(36)}`);
  const none = await warehouseTraffic(db(), fresh.warehouse_id, 7);
  expect(none.traffic).toBeNull();
  expect(none.traffic_note).toMatch(/two consecutive hourly samples/);
  const freshUsage = (await gateway().get('/v1/usage').set(bearer(admin.api_key))).body.warehouses.find((x: { warehouse_id: string }) => x.warehouse_id === fresh.warehouse_id);
  expect(freshUsage).toMatchObject({ traffic: null, traffic_note: expect.any(String) });
}, 90_000);

test('over the organisation\'s storage limit the pass freezes the buckets (PUT refused by the store, GET works) but a public table bucket; back under it lifts them', async () => {
  const { s3, location } = await vendedS3(ref);
  const key = keyOf(w.bucket, `${location}/data/probe-${Date.now()}.bin`);
  await s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: key, Body: Buffer.alloc(4096, 1) }));
  // A public catalog of the same organisation: its table bucket carries the public allowance from publication on.
  const pub = await newWarehouse(admin.api_key, w.project_id, `public_${Date.now().toString(36)}`);
  const published = await gateway().post(`/v1/warehouses/${pub.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: pub.name });
  expect(published.status).toBe(200);
  expect(published.body.bucket_quotas).toEqual({ quotas: { [pub.bucket]: { enabled: true, max_bytes: PUBLIC_STORAGE_BYTES } }, errors: [] });
  const pubReadOnly = async () => (await sql<{ read_only_since: Date | null }>(`SELECT read_only_since FROM warehouses WHERE id = $1`, [pub.warehouse_id]))[0].read_only_since;

  await sql(`INSERT INTO org_limits (org_id, plan, overrides) VALUES ($1, 'free', '{"storage_bytes": 1}')`, [orgId]);
  await until('read_only_since set by the enforcement pass', readOnlySince, 60);
  // The public catalog is read-only too, but only its blob bucket is frozen: the table bucket keeps the public allowance, takes writes and is read anonymously.
  await until('the public catalog marked read-only', pubReadOnly, 60);
  expect(await store.getBucketQuota(pub.bucket)).toEqual({ enabled: true, maxBytes: PUBLIC_STORAGE_BYTES });
  expect((await store.getBucketQuota(pub.blob_bucket)).maxBytes!).toBeLessThan(FREE_STORAGE_BYTES);
  await store.s3.send(new PutObjectCommand({ Bucket: pub.bucket, Key: 'open/while-frozen.txt', Body: 'still writable' }));
  const anonymous = await fetch(`${published.body.public_url}open/while-frozen.txt`);
  expect(anonymous.status).toBe(200);
  expect(await anonymous.text()).toBe('still writable');
  // Unpublished while read-only, the table bucket is frozen with the rest; published again, it has the public allowance back.
  const privateWhileFrozen = await gateway().delete(`/v1/warehouses/${pub.warehouse_id}/public`).set(bearer(admin.api_key));
  expect(privateWhileFrozen.status).toBe(200);
  expect(privateWhileFrozen.body.bucket_quotas.quotas[pub.bucket].max_bytes).toBeLessThan(FREE_STORAGE_BYTES);
  const again = await gateway().post(`/v1/warehouses/${pub.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: pub.name });
  expect(again.body.bucket_quotas).toEqual({ quotas: { [pub.bucket]: { enabled: true, max_bytes: PUBLIC_STORAGE_BYTES } }, errors: [] });
  const frozen = await store.getBucketQuota(w.bucket);
  expect(frozen.enabled).toBe(true);
  expect(frozen.maxBytes!).toBeLessThan(FREE_STORAGE_BYTES);

  const refused = await s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: `${key}.2`, Body: Buffer.alloc(4096, 2) })).then(() => null, (e: any) => e);
  expect(refused).not.toBeNull();
  expect(refused.$metadata?.httpStatusCode).toBe(403);
  expect(refused.name ?? refused.Code).toMatch(/QuotaExceeded/);
  const read = await s3.send(new GetObjectCommand({ Bucket: w.bucket, Key: key }));
  expect((await read.Body!.transformToByteArray()).length).toBe(4096);

  await sql(`DELETE FROM org_limits WHERE org_id = $1`, [orgId]);
  await until('read_only_since cleared', async () => (await readOnlySince()) === null, 60);
  expect(await store.getBucketQuota(w.bucket)).toEqual({ enabled: true, maxBytes: FREE_STORAGE_BYTES });
  await s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: `${key}.3`, Body: Buffer.alloc(4096, 3) }));
  // Lifted, the public catalog's blob bucket is back at the private limit and its table bucket keeps the public allowance; unpublished, the table bucket is back under the private limit.
  await until('the public catalog lifted', async () => (await pubReadOnly()) === null, 60);
  expect(await store.getBucketQuota(pub.blob_bucket)).toEqual({ enabled: true, maxBytes: FREE_STORAGE_BYTES });
  expect(await store.getBucketQuota(pub.bucket)).toEqual({ enabled: true, maxBytes: PUBLIC_STORAGE_BYTES });
  const unpublished = await gateway().delete(`/v1/warehouses/${pub.warehouse_id}/public`).set(bearer(admin.api_key));
  expect(unpublished.status).toBe(200);
  expect(unpublished.body.bucket_quotas).toEqual({ quotas: { [pub.bucket]: { enabled: true, max_bytes: FREE_STORAGE_BYTES } }, errors: [] });
}, 180_000);

test('a retried measure job writes no second sample: its report, sent again, rewrites the job\'s one sample', async () => {
  const fresh = await newWarehouse(admin.api_key, w.project_id, `retried_${Date.now().toString(36)}`);
  const jobKey = sweepMeasureJobId(fresh.warehouse_id, 424242);
  const report = (bytes: number): UsageReport => {
    const now = new Date();
    return {
      warehouse_id: fresh.warehouse_id, source: 'sweep', measured_at: now.toISOString(), stale_after: new Date(now.getTime() + 40_000).toISOString(),
      table: { bytes, objects: 1 }, blob: { bytes: 0, objects: 0 }, complete: true, traffic: null, job_key: jobKey,
    };
  };
  const send = (r: UsageReport) => request(stack().services['control-plane'].url).post('/internal/usage').set(bearer(stack().bootstrap_secret)).send(r);
  const first = await send(report(100));
  expect(first.status).toBe(200);
  expect(first.body).toMatchObject({ warehouse_id: fresh.warehouse_id, recorded: true, over: false });
  // The retry measured again: its figures replace the first attempt's, in the same row.
  const retried = await send(report(200));
  expect(retried.status).toBe(200);
  expect(retried.body.recorded).toBe(true);
  const rows = await sql<{ table_bytes: string; source: string }>(`SELECT table_bytes::text, source FROM usage_samples WHERE job_key = $1`, [jobKey]);
  expect(rows).toEqual([{ table_bytes: '200', source: 'sweep' }]);
  // A report without the job's key is refused: every worker report names its job.
  const { job_key: _omitted, ...keyless } = report(300);
  expect(expectError(await send(keyless as UsageReport), 400, 'missing_field').field).toBe('job_key');
});
