import { Queue } from 'bullmq';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { queueConnection, queuePrefix, QUEUES } from '@floe/queues';
import { adminStorage } from '../support/store';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { db, stack } from './helpers';

// Spec: rotate, public, measure, PATCH, and the provisioning retry job.

test('PATCH default_format_version: every refusal, audited only on change', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const path = `/v1/warehouses/${w.warehouse_id}`;
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({}), 400, 'missing_field');
  expect(expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ name: 'x' }), 400, 'invalid_field').accepts).toEqual(['default_format_version']);
  expect(Object.keys(expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ default_format_version: 1 }), 400, 'invalid_value').versions as object)).toEqual(['2', '3']);
  expect(expectError(await gateway().patch(path).set(bearer(member.api_key)).send({ default_format_version: 3 }), 403, 'forbidden').can_grant).toHaveLength(1);
  const changed = await gateway().patch(path).set(bearer(admin.api_key)).send({ default_format_version: 3 });
  expect(changed.status).toBe(200);
  expect(changed.body).toMatchObject({ default_format_version: 3, updated: ['default_format_version'], previous: { default_format_version: 2 } });
  expect(changed.body.format.writers.length).toBeGreaterThan(0);
  const same = await gateway().patch(path).set(bearer(admin.api_key)).send({ default_format_version: 3 });
  expect(same.body).toMatchObject({ updated: [], previous: { default_format_version: 3 } });
  const audit = await gateway().get('/v1/audit').query({ action: 'warehouse.update' }).set(bearer(admin.api_key));
  expect(audit.body.events).toHaveLength(1);
  expect(audit.body.events[0].data).toEqual({ changes: { default_format_version: 3 }, previous: { default_format_version: 2 } });
});

test('rotate needs write; public and unpublish are for admins and need the name', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(member.api_key)), 403, 'forbidden');
  expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(member.api_key)).send({ confirm: w.name }), 403, 'forbidden');
  expect(expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: 'wrong' }), 400, 'confirmation_required').confirm_with).toBe(w.name);
  expectError(await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(member.api_key)), 403, 'forbidden');

  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: 'open/data.txt', Body: 'hello' }));
  const on = await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name });
  expect(on.status).toBe(200);
  expect(on.body).toMatchObject({ public: true, tier: 'public', public_url: `${stack().s3_url}/${w.bucket}/`, public_by: admin.principal_id });
  expect(await (await fetch(`${on.body.public_url}open/data.txt`)).text()).toBe('hello');
  const listed = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(member.api_key));
  expect(listed.body).toMatchObject({ public: true, public_url: on.body.public_url });
  expect(listed.body.public_note).toEqual(expect.any(String));
  const off = await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key));
  expect(off.body).toMatchObject({ public: false, public_url: null, was_public: true, policy_removed: true, tier: 'private' });
  expect((await fetch(`${on.body.public_url}open/data.txt`)).status).toBe(403);
});

test('measure stores an on-demand sample, once a minute', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.blob_bucket, Key: 'a.bin', Body: Buffer.alloc(1000) }));
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: 't/b.bin', Body: Buffer.alloc(500) }));
  const before = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key));
  expect(before.body.stored).toMatchObject({ unmetered: true, bytes: null });
  const m = await gateway().post(`/v1/warehouses/${w.warehouse_id}/measure`).set(bearer(admin.api_key));
  expect(m.status).toBe(200);
  expect(m.body).toMatchObject({ source: 'on_demand', bytes: 1500, table_bytes: 500, blob_bytes: 1000, objects: 2, blob_objects: 1, complete: true, partial: false, page_cap: 50, blob_bucket: 'listed' });
  expect(m.body.storage).toMatchObject({ current: 1500, limit: 5_368_709_120, over_limit: false });
  const after = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key));
  expect(after.body.stored).toMatchObject({ unmetered: false, bytes: 1500, source: 'on_demand', measured_at: m.body.measured_at });
  const again = await gateway().post(`/v1/warehouses/${w.warehouse_id}/measure`).set(bearer(admin.api_key));
  expect(expectError(again, 429, 'rate_limited').retry_after_seconds).toBeGreaterThan(0);
  expect(Number(again.headers['retry-after'])).toBeGreaterThan(0);
});

test('a catalog left provisioning becomes ready when the retry job finds the store writable', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const pool = db();
  const queue = new Queue(QUEUES.provisioning, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(stack().redis_prefix) });
  try {
    await pool.query(`UPDATE warehouses SET status = 'provisioning' WHERE id = $1`, [w.warehouse_id]);
    expectError(await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key)), 503, 'provisioning');
    await queue.add('probe', { warehouse_id: w.warehouse_id, until: new Date(Date.now() + 60_000).toISOString() }, { jobId: `provision-${w.warehouse_id}-test` });
    const deadline = Date.now() + 20_000;
    for (;;) {
      const res = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key));
      if (res.body.status === 'ready') break;
      if (Date.now() > deadline) throw new Error('the provisioning job did not make the catalog ready');
      await new Promise((r) => setTimeout(r, 300));
    }
    expect((await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key))).status).toBe(200);
  } finally {
    await queue.close();
    await pool.end();
  }
});
