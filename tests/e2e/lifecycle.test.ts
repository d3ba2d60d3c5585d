import request from 'supertest';
import {
  DeleteBucketLifecycleCommand, DeleteBucketPolicyCommand, PutBucketLifecycleConfigurationCommand, PutBucketPolicyCommand,
} from '@aws-sdk/client-s3';
import { adminStorage } from '../support/store';
import { until } from '../support/poll';
import { bearer, catalogWithCallers, expectError, gateway, newProject, newWarehouse, uniq, type CatalogCallers } from './control-plane-helpers';
import { stack } from './helpers';

// Spec: GET|PUT|DELETE /v1/warehouses/{id}/lifecycle (the blob bucket only)
// and GET /internal/lifecycle-audit. The test cluster's radosgw runs with
// `rgw lc debug interval = 10`, so a lifecycle "day" is 10 s and an expiry is
// seen within a minute or so.

let c: CatalogCallers;
const path = () => `/v1/warehouses/${c.w.warehouse_id}/lifecycle`;
const put = (body: unknown, as = c.admin.api_key) => gateway().put(path()).set(bearer(as)).send(body as object);
const internal = () => request(stack().services['control-plane'].url);
const store = adminStorage();

beforeAll(async () => {
  c = await catalogWithCallers('lc');
});

test('every refusal before the store, with its status and code; a refused PUT leaves nothing set', async () => {
  expect(expectError(await put({ rules: [{ prefix: 'tmp/', expire_days: 0 }] }), 400, 'invalid_value').field).toBe('rules[0].expire_days');
  expectError(await put({ rules: [{ expire_days: 2.5 }] }), 400, 'invalid_value');
  expect(expectError(await put({ rules: [{ expire_days: 3, expire_date: '2030-01-01' }] }), 400, 'invalid_value').field).toBe('rules[0]');
  expectError(await put({ rules: [{ expire_days: 3, transitions: [{ days: 1, storage_class: 'GLACIER' }] }] }), 400, 'not_supported');
  expectError(await put({ rules: [{ transition_days: 1 }] }), 400, 'not_supported');
  const unknown = expectError(await put({ rules: [{ expire_days: 3, size_greater_than: 10 }] }), 400, 'invalid_value');
  expect(unknown.accepted).toEqual(['id', 'prefix', 'expire_days', 'expire_date', 'abort_incomplete_multipart_days', 'enabled']);
  expect(expectError(await put({ rules: [{ id: 'x', prefix: 'a/', expire_days: 1 }, { id: 'x', prefix: 'b/', expire_days: 2 }] }), 400, 'invalid_value').duplicate).toBe('x');
  // An expiry over the whole bucket would reach _sink/, where sink batches wait to be rolled.
  expect(expectError(await put({ rules: [{ id: 'all', expire_days: 1 }] }), 400, 'invalid_value')).toMatchObject({ field: 'rules[0].prefix', reserved_prefix: '_sink/' });
  expectError(await put({ rules: [] }), 400, 'invalid_value');
  expectError(await put({}), 400, 'missing_field');
  expectError(await put({ rules: [{ prefix: '/abs', expire_days: 1 }] }), 400, 'invalid_value');
  expect(expectError(await put({ rules: Array.from({ length: 1001 }, (_, i) => ({ id: `r${i}`, expire_days: 1 })) }), 413, 'too_large').limit).toBe(1000);
  // Under the 1 MB body limit as JSON, over 1 MiB as the S3 document (each & is escaped to five bytes).
  const huge = { rules: Array.from({ length: 1000 }, (_, i) => ({ id: `r${i}`, prefix: `${'&'.repeat(250)}/`, expire_days: 1 })) };
  expect(JSON.stringify(huge).length).toBeLessThan(1_000_000);
  expect(expectError(await put(huge), 413, 'too_large').limit).toBe(1024 * 1024);

  expect(expectError(await put({ rules: [{ expire_days: 1 }] }, c.reader.api_key), 403, 'forbidden').can_grant).toHaveLength(1);
  expectError(await gateway().delete(path()).set(bearer(c.reader.api_key)), 403, 'forbidden');
  for (const who of [c.ungranted, c.stranger]) {
    expectError(await gateway().get(path()).set(bearer(who.api_key)), 404, 'warehouse_not_found');
    expectError(await put({ rules: [{ expire_days: 1 }] }, who.api_key), 404, 'warehouse_not_found');
    expectError(await gateway().delete(path()).set(bearer(who.api_key)), 404, 'warehouse_not_found');
  }
  expect(await store.getLifecycle(c.w.blob_bucket)).toEqual({ configured: false, rules: [] });
  const got = await gateway().get(path()).set(bearer(c.reader.api_key));
  expect(got.body).toMatchObject({ warehouse_id: c.w.warehouse_id, bucket: c.w.blob_bucket, configured: false, rules: [], count: 0 });
});

test('set, read back (with the stored XML), audited; clear is idempotent; the table bucket is never touched', async () => {
  const set = await put({ rules: [
    { id: 'tmp', prefix: 'tmp/', expire_days: 1 },
    { prefix: 'old/', expire_date: '2031-01-01', enabled: false, abort_incomplete_multipart_days: 2 },
  ] });
  expect(set.status).toBe(200);
  expect(set.body).toMatchObject({ bucket: c.w.blob_bucket, configured: true, count: 2, note: expect.any(String) });
  expect(set.body.xml_bytes).toBeGreaterThan(200);
  expect(set.body.rules).toEqual([
    { id: 'tmp', prefix: 'tmp/', enabled: true, expire_days: 1, expire_date: null, abort_incomplete_multipart_days: null, expressible: true },
    { id: 'rule-2', prefix: 'old/', enabled: false, expire_days: null, expire_date: '2031-01-01', abort_incomplete_multipart_days: 2, expressible: true },
  ]);
  const got = await gateway().get(path()).query({ include_xml: 'true' }).set(bearer(c.reader.api_key));
  expect(got.body).toMatchObject({ configured: true, count: 2 });
  expect(got.body.rules.map((r: { id: string }) => r.id).sort()).toEqual(['rule-2', 'tmp']);
  expect(got.body.xml).toMatch(/^<\?xml[\s\S]*<ID>tmp<\/ID>[\s\S]*<\/LifecycleConfiguration>$/);
  expect((await gateway().get(path()).set(bearer(c.reader.api_key))).body.xml).toBeUndefined();
  expect(await store.getLifecycle(c.w.bucket)).toEqual({ configured: false, rules: [] });
  const audit = await gateway().get('/v1/audit').query({ action: 'warehouse.update' }).set(bearer(c.admin.api_key));
  expect(audit.body.events.map((e: { data: unknown }) => e.data)).toContainEqual({ changes: { lifecycle_rules: 2 }, previous: { lifecycle_rules: 0 } });

  const cleared = await gateway().delete(path()).set(bearer(c.admin.api_key));
  expect(cleared.body).toMatchObject({ configured: false, had_rules: true, rules_removed: 2, rules: [], count: 0 });
  const again = await gateway().delete(path()).set(bearer(c.admin.api_key));
  expect(again.status).toBe(200);
  expect(again.body).toMatchObject({ configured: false, had_rules: false, rules_removed: 0 });
  expect((await gateway().get(path()).set(bearer(c.admin.api_key))).body).toMatchObject({ configured: false, rules: [] });
});

test('20 PUTs at once, each a different configuration: every one answers 200, and what is left is exactly one of them, whole', async () => {
  const configs = Array.from({ length: 20 }, (_, i) => Array.from({ length: (i % 3) + 1 }, (_, j) => ({ id: `c${i}-r${j}`, prefix: `c${i}/r${j}/`, expire_days: i + 1 })));
  const answers = await Promise.all(configs.map((rules) => put({ rules })));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  const got = await gateway().get(path()).set(bearer(c.admin.api_key));
  const left = got.body.rules.map((r: { id: string; prefix: string; expire_days: number }) => ({ id: r.id, prefix: r.prefix, expire_days: r.expire_days }));
  expect(configs).toContainEqual(left);
  expect(got.body.count).toBe(left.length);
  await gateway().delete(path()).set(bearer(c.admin.api_key)).expect(200);
}, 60_000);

test('a rule made directly with the AWS SDK reads back as not expressible, with what it holds', async () => {
  await store.s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: c.w.blob_bucket, LifecycleConfiguration: { Rules: [
    { ID: 'tagged', Status: 'Enabled', Filter: { And: { Prefix: 'x/', Tags: [{ Key: 'team', Value: 'data' }] } }, Expiration: { Days: 3 } },
    { ID: 'cold', Status: 'Enabled', Filter: { Prefix: 'z/' }, Transitions: [{ Days: 3, StorageClass: 'STANDARD_IA' }] },
  ] } }));
  const got = await gateway().get(path()).set(bearer(c.reader.api_key));
  const byId = Object.fromEntries(got.body.rules.map((r: { id: string }) => [r.id, r]));
  expect(byId.tagged).toMatchObject({ prefix: 'x/', expire_days: 3, expressible: false, tags: { team: 'data' } });
  expect(byId.cold).toMatchObject({ prefix: 'z/', expressible: false, other: ['transitions'] });
  expect((await gateway().delete(path()).set(bearer(c.admin.api_key))).body.rules_removed).toBe(2);
});

test('a rule expires the objects under its prefix and leaves the rest', async () => {
  const upload = (key: string) => gateway().post(`/v1/warehouses/${c.w.warehouse_id}/blobs/upload`).query({ key }).set(bearer(c.admin.api_key)).set('Content-Type', 'text/plain').send('x');
  for (const key of ['tmp/a.txt', 'tmp/b.txt', 'tmpx.txt', 'keep/c.txt']) expect((await upload(key)).status).toBe(201);
  expect((await put({ rules: [{ id: 'tmp', prefix: 'tmp/', expire_days: 1 }] })).status).toBe(200);
  const keys = async () => (await gateway().get(`/v1/warehouses/${c.w.warehouse_id}/blobs`).query({ delimiter: '' }).set(bearer(c.admin.api_key))).body.objects.map((o: { key: string }) => o.key);
  const left = await until('tmp/ to expire', async () => {
    const now = await keys();
    return now.some((k: string) => k.startsWith('tmp/')) ? null : now;
  }, 150, 2000);
  expect(left).toEqual(['keep/c.txt', 'tmpx.txt']);
  await gateway().delete(path()).set(bearer(c.admin.api_key)).expect(200);
}, 180_000);

test('the lifecycle audit: table buckets clean, a table bucket given a rule or a lifecycle statement is flagged; include_blobs adds blob rules', async () => {
  const dirty = await newWarehouse(c.admin.api_key, (await newProject(c.admin.api_key)).project_id, `lcd_${uniq()}`);
  const secret = bearer(stack().bootstrap_secret);
  expectError(await internal().get('/internal/lifecycle-audit'), 401, 'unauthorized');
  expectError(await gateway().get('/internal/lifecycle-audit').set(secret), 404, 'not_found');
  expect((await put({ rules: [{ id: 'blobrule', prefix: 'logs/', expire_days: 30 }] })).status).toBe(200);

  const before = await internal().get('/internal/lifecycle-audit').set(secret);
  expect(before.status).toBe(200);
  const row = (body: { table_buckets: Array<{ bucket: string }> }, bucket: string) => body.table_buckets.find((t) => t.bucket === bucket);
  expect(row(before.body, c.w.bucket)).toEqual({ warehouse_id: c.w.warehouse_id, name: c.w.name, bucket: c.w.bucket, kind: 'tables', clean: true, lifecycle_rules: [], lifecycle_statements: [] });
  expect(row(before.body, dirty.bucket)).toMatchObject({ clean: true });
  expect(before.body.flagged_buckets).not.toContain(dirty.bucket);
  expect(before.body.blob_buckets).toBeUndefined();

  try {
    await store.s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: dirty.bucket, LifecycleConfiguration: { Rules: [
      { ID: 'oops', Status: 'Enabled', Filter: { Prefix: 'ns/' }, Expiration: { Days: 1 } },
    ] } }));
    await store.s3.send(new PutBucketPolicyCommand({ Bucket: dirty.bucket, Policy: JSON.stringify({ Version: '2012-10-17', Statement: [
      { Sid: 'LetThemExpire', Effect: 'Allow', Principal: { AWS: ['*'] }, Action: ['s3:PutLifecycleConfiguration'], Resource: [`arn:aws:s3:::${dirty.bucket}`] },
    ] }) }));
    const after = await internal().get('/internal/lifecycle-audit').query({ include_blobs: 'true' }).set(secret);
    expect(after.body.clean).toBe(false);
    expect(after.body.flagged).toBeGreaterThanOrEqual(1);
    expect(after.body.flagged_buckets).toContain(dirty.bucket);
    expect(row(after.body, dirty.bucket)).toMatchObject({
      clean: false, lifecycle_rules: [{ id: 'oops', prefix: 'ns/' }], lifecycle_statements: [{ index: 0, sid: 'LetThemExpire' }],
    });
    expect(row(after.body, c.w.bucket)).toMatchObject({ clean: true });
    const blobs = after.body.blob_buckets.find((b: { bucket: string }) => b.bucket === c.w.blob_bucket);
    expect(blobs).toMatchObject({ kind: 'blobs', configured: true, rules: [expect.objectContaining({ id: 'blobrule', prefix: 'logs/', expire_days: 30 })] });
  } finally {
    await store.s3.send(new DeleteBucketLifecycleCommand({ Bucket: dirty.bucket }));
    await store.s3.send(new DeleteBucketPolicyCommand({ Bucket: dirty.bucket }));
    await gateway().delete(path()).set(bearer(c.admin.api_key));
  }
  const cleanAgain = await internal().get('/internal/lifecycle-audit').set(secret);
  expect(row(cleanAgain.body, dirty.bucket)).toMatchObject({ clean: true, lifecycle_rules: [], lifecycle_statements: [] });
  // Each audit reads every bucket of the stack: a full suite's stack holds
  // hundreds of catalogs by the time this runs (CI took over 30 s for three).
}, 120_000);
