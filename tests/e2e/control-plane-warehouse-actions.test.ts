import { Queue } from 'bullmq';
import { DeleteBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { queueConnection, queuePrefix, QUEUES } from '@floe/queues';
import { adminStorage } from '../support/store';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse } from './control-plane-helpers';
import { db, stack } from './helpers';
import { until } from '../support/poll';

// Spec: rotate, public, measure, PATCH, and the provisioning retry job.

type Credential = { client_id: string; client_secret: string };

/** The catalog's token exchange as PyIceberg sends it; the status, and the token on 200. */
async function exchange(c: Credential): Promise<{ status: number; token?: string }> {
  const res = await fetch(`${stack().catalog_url}/v1/oauth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: c.client_id, client_secret: c.client_secret }),
  });
  return res.status === 200 ? { status: 200, token: ((await res.json()) as { access_token: string }).access_token } : { status: res.status };
}

const namespacesWith = async (token: string, warehouseId: string) =>
  (await fetch(`${stack().catalog_url}/v1/${warehouseId}/namespaces`, { headers: bearer(token) })).status;

async function connection(apiKey: string, warehouseId: string, level: 'read' | 'write'): Promise<Credential> {
  const res = await gateway().get('/v1/connection').query({ warehouse: warehouseId, level }).set(bearer(apiKey));
  if (res.status !== 200) throw new Error(`connection failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.catalog_credential;
}

test('PATCH default_format_version: every refusal, audited only on change', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const path = `/v1/warehouses/${w.warehouse_id}`;
  expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({}), 400, 'missing_field');
  expect(expectError(await gateway().patch(path).set(bearer(admin.api_key)).send({ name: 'x' }), 400, 'invalid_field').accepts).toEqual(['default_format_version', 'storage_access']);
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
  const refused = expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(member.api_key)), 403, 'forbidden');
  expect(refused.can_grant).toEqual([expect.objectContaining({ principal_id: admin.principal_id, role: 'admin' })]);
  expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(member.api_key)).send({ confirm: w.name }), 403, 'forbidden');
  expect(expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: 'wrong' }), 400, 'confirmation_required').confirm_with).toBe(w.name);
  expectError(await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(member.api_key)), 403, 'forbidden');

  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: 'open/data.txt', Body: 'hello' }));
  const on = await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name });
  expect(on.status).toBe(200);
  expect(on.body).toMatchObject({ public: true, tier: 'public', public_url: `${stack().s3_url}/${w.bucket}/`, public_by: admin.principal_id });
  expect(on.body.public_since).toEqual(expect.any(String));
  expect(on.body.public_note).toEqual(expect.any(String));
  expect(on.body.policy.Statement).toEqual(expect.arrayContaining([expect.objectContaining({ Effect: 'Allow', Principal: expect.anything() })]));
  expect(on.body.bucket_quotas).toEqual({ quotas: { [w.bucket]: expect.objectContaining({ enabled: expect.any(Boolean) }) }, errors: [] });
  expect(await (await fetch(`${on.body.public_url}open/data.txt`)).text()).toBe('hello');
  expect((await fetch(`${on.body.public_url}open/intruder.txt`, { method: 'PUT', body: 'x' })).status).toBe(403);
  expect((await fetch(`${on.body.public_url}open/data.txt`, { method: 'DELETE' })).status).toBe(403);
  const listed = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(member.api_key));
  expect(listed.body).toMatchObject({ public: true, public_url: on.body.public_url });
  expect(listed.body.public_note).toEqual(expect.any(String));
  const off = await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key));
  expect(off.body).toMatchObject({ public: false, public_url: null, was_public: true, policy_removed: true, tier: 'private' });
  expect((await fetch(`${on.body.public_url}open/data.txt`)).status).toBe(403);
  const offAgain = await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key));
  expect(offAgain.body).toMatchObject({ public: false, was_public: false, policy_removed: false, tier: 'private' });
  const pool = db();
  try {
    const { rows } = await pool.query(`SELECT data FROM audit_events WHERE action = 'warehouse.update' AND target_id = $1 ORDER BY id`, [w.warehouse_id]);
    expect(rows.map((r) => r.data.changes)).toEqual([{ public: true, files_prefix: '' }, { public: false }]);
  } finally {
    await pool.end();
  }
});

test('rotate: the new pair works at once, the old read/write key and its tokens stop before the answer, the old read-only key within 30 s', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const oldRw = await connection(admin.api_key, w.warehouse_id, 'write');
  const oldRo = await connection(admin.api_key, w.warehouse_id, 'read');
  const rwToken = (await exchange(oldRw)).token!;
  const roToken = (await exchange(oldRo)).token!;
  expect(await namespacesWith(rwToken, w.warehouse_id)).toBe(200);

  const r = await gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(admin.api_key));
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({
    warehouse_id: w.warehouse_id,
    warehouse_name: w.bucket,
    catalog_credential: { client_id: expect.stringMatching(/^t-[0-9a-f-]{36}$/), client_secret: expect.any(String) },
    catalog_credential_ro: { client_id: expect.stringMatching(/^t-[0-9a-f-]{36}-ro$/), client_secret: expect.any(String) },
    previous_client_id: oldRw.client_id,
    previous_revoked: true,
    previous_client_id_ro: oldRo.client_id,
    previous_revoked_ro: false,
    previous_ro_revocation: { status: 'queued', audit: 'warehouse.rotate_complete', expected: expect.any(String) },
    note: expect.any(String),
  });
  expect(r.body.catalog_credential.client_id).not.toBe(oldRw.client_id);
  expect(Date.parse(r.body.previous_ro_revocation.expected) - Date.parse(r.body.rotated_at)).toBe(10_000);

  // Right after the answer: the old read/write key and a token minted from it are refused.
  expect((await exchange(oldRw)).status).toBe(401);
  expect(await namespacesWith(rwToken, w.warehouse_id)).toBe(401);
  const fresh = await exchange(r.body.catalog_credential);
  expect(await namespacesWith(fresh.token!, w.warehouse_id)).toBe(200);
  expect(await namespacesWith((await exchange(r.body.catalog_credential_ro)).token!, w.warehouse_id)).toBe(200);
  expect(await connection(admin.api_key, w.warehouse_id, 'write')).toEqual(r.body.catalog_credential);
  // The old read-only key has its grace period, then the worker retires it.
  expect((await exchange(oldRo)).status).toBe(200);
  expect(await namespacesWith(roToken, w.warehouse_id)).toBe(200);
  const deadline = Date.now() + 30_000;
  while ((await exchange(oldRo)).status === 200) {
    if (Date.now() > deadline) throw new Error('the old read-only key still works 30 s after the rotate');
    await new Promise((res) => setTimeout(res, 500));
  }
  expect((await exchange(oldRo)).status).toBe(401);
  expect(await namespacesWith(roToken, w.warehouse_id)).toBe(401);

  const pool = db();
  try {
    const { rows } = await pool.query(
      `SELECT action, actor_id, org_id, data FROM audit_events WHERE target_id = $1 AND action LIKE 'warehouse.rotate%' ORDER BY id`, [w.warehouse_id]);
    expect(rows.map((e) => e.action)).toEqual(['warehouse.rotate', 'warehouse.rotate_complete']);
    expect(rows[0]).toMatchObject({ actor_id: admin.principal_id, data: { previous_client_id: oldRw.client_id, new_client_id: r.body.catalog_credential.client_id } });
    expect(rows[1]).toMatchObject({ actor_id: admin.principal_id, org_id: rows[0].org_id, data: { client_id: oldRo.client_id } });
    expect(rows[0].org_id).toEqual(expect.any(String));
  } finally {
    await pool.end();
  }

  // A second rotate replaces the pair the first one issued.
  const again = await gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(admin.api_key));
  expect(again.body).toMatchObject({ previous_client_id: r.body.catalog_credential.client_id, previous_client_id_ro: r.body.catalog_credential_ro.client_id });
  expect(await namespacesWith(fresh.token!, w.warehouse_id)).toBe(401);
}, 60_000);

test('twenty concurrent rotations are serialized: each replaces the pair the one before issued, and one pair is left live', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const original = { rw: await connection(admin.api_key, w.warehouse_id, 'write'), ro: await connection(admin.api_key, w.warehouse_id, 'read') };

  const answers = await Promise.all(Array.from({ length: 20 }, () => gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(admin.api_key))));
  expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
  const rotations = answers.map((r) => r.body as {
    catalog_credential: Credential; catalog_credential_ro: Credential; previous_client_id: string; previous_client_id_ro: string; previous_revoked: boolean;
  });

  // One chain: every pair (the original and each issued one) was replaced by exactly one rotation, except the last issued.
  const issuedRw = rotations.map((r) => r.catalog_credential.client_id);
  expect(new Set(issuedRw).size).toBe(20);
  const replacedRw = rotations.map((r) => r.previous_client_id);
  expect(new Set(replacedRw).size).toBe(20);
  expect(replacedRw).toContain(original.rw.client_id);
  const last = rotations.filter((r) => !replacedRw.includes(r.catalog_credential.client_id));
  expect(last).toHaveLength(1);
  const final = last[0];
  expect([...replacedRw].sort()).toEqual([original.rw.client_id, ...issuedRw.filter((id) => id !== final.catalog_credential.client_id)].sort());
  for (const r of rotations) expect(r.previous_revoked).toBe(true);
  // The read-only side chains the same way: each rotation names the read-only key of the pair it replaced.
  const pairOf = new Map(rotations.map((r) => [r.catalog_credential.client_id, r.catalog_credential_ro.client_id]));
  pairOf.set(original.rw.client_id, original.ro.client_id);
  for (const r of rotations) expect(r.previous_client_id_ro).toBe(pairOf.get(r.previous_client_id));

  const live = async () => {
    const pool = db();
    try {
      const { rows } = await pool.query<{ client_id: string; access: string }>(
        `SELECT client_id, access FROM catalog_credentials WHERE warehouse_id = $1 AND revoked_at IS NULL ORDER BY client_id`, [w.warehouse_id]);
      return { rw: rows.filter((c) => c.access === 'write').map((c) => c.client_id), ro: rows.filter((c) => c.access === 'read').map((c) => c.client_id) };
    } finally {
      await pool.end();
    }
  };
  // Right after the answers: one live read/write key, the last one's; the replaced read-only keys await retirement.
  const now = await live();
  expect(now.rw).toEqual([final.catalog_credential.client_id]);
  expect(now.ro).toContain(final.catalog_credential_ro.client_id);
  // Once the worker has retired them: exactly one pair, the last answer's.
  const settled = await until('the replaced read-only keys to be retired', async () => {
    const l = await live();
    return l.ro.length === 1 ? l : null;
  }, 45, 500);
  expect(settled).toEqual({ rw: [final.catalog_credential.client_id], ro: [final.catalog_credential_ro.client_id] });

  // The last answer's credentials work; every replaced one is refused.
  for (const c of [final.catalog_credential, final.catalog_credential_ro]) {
    expect(await namespacesWith((await exchange(c)).token!, w.warehouse_id)).toBe(200);
  }
  for (const r of rotations.filter((x) => x !== final)) {
    expect((await exchange(r.catalog_credential)).status).toBe(401);
    expect((await exchange(r.catalog_credential_ro)).status).toBe(401);
  }
  expect((await exchange(original.rw)).status).toBe(401);
  expect(await connection(admin.api_key, w.warehouse_id, 'write')).toEqual(final.catalog_credential);
  expect(await connection(admin.api_key, w.warehouse_id, 'read')).toEqual(final.catalog_credential_ro);
}, 90_000);

test('a warehouse with no current credential pair still gets one', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const pool = db();
  try {
    await pool.query(`UPDATE catalog_credentials SET revoked_at = now() WHERE warehouse_id = $1`, [w.warehouse_id]);
  } finally {
    await pool.end();
  }
  const r = await gateway().post(`/v1/warehouses/${w.warehouse_id}/rotate`).set(bearer(admin.api_key));
  expect(r.status).toBe(200);
  expect(r.body).toMatchObject({ previous_client_id: null, previous_revoked: false, previous_client_id_ro: null, previous_ro_revocation: null });
  expect((await exchange(r.body.catalog_credential)).status).toBe(200);
});

test('publishing is refused when the public tier would overflow', async () => {
  const { admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: w.bucket, Key: 'x.txt', Body: 'x' }));
  const pool = db();
  try {
    // A sample as the hourly sweep would record it for a 60 GB catalog.
    await pool.query(
      `INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', $2, 0, 1, 0, true)`,
      [w.warehouse_id, 60 * 1024 ** 3]);
  } finally {
    await pool.end();
  }
  const res = await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name });
  expect(expectError(res, 409, 'quota_exceeded')).toMatchObject({ tier: 'public', current: 60 * 1024 ** 3, limit_value: 50 * 1024 ** 3 });
  expect((await fetch(`${stack().s3_url}/${w.bucket}/x.txt`)).status).toBe(403);
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.public).toBe(false);
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
  const pool = db();
  try {
    const { rows } = await pool.query(`SELECT actor_id, data FROM audit_events WHERE action = 'warehouse.measure' AND target_id = $1`, [w.warehouse_id]);
    expect(rows).toEqual([{ actor_id: admin.principal_id, data: { bytes: 1500, objects: 2, partial: false } }]);
  } finally {
    await pool.end();
  }
});

test('measure: read level is enough; a missing blob bucket is unprovisioned; a storage_error sets no mark', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  await adminStorage().s3.send(new DeleteBucketCommand({ Bucket: w.blob_bucket }));
  const m = await gateway().post(`/v1/warehouses/${w.warehouse_id}/measure`).set(bearer(member.api_key));
  expect(m.status).toBe(200);
  expect(m.body).toMatchObject({ bytes: 0, blob_bucket: 'unprovisioned', tier: 'private', public_storage: {}, pages: 1 });

  const broken = await newWarehouse(admin.api_key, project.project_id);
  await adminStorage().s3.send(new DeleteBucketCommand({ Bucket: broken.bucket }));
  const failed = await gateway().post(`/v1/warehouses/${broken.warehouse_id}/measure`).set(bearer(admin.api_key));
  expectError(failed, 502, 'storage_error');
  expectError(await gateway().post(`/v1/warehouses/${broken.warehouse_id}/measure`).set(bearer(admin.api_key)), 502, 'storage_error');
  expect((await gateway().get(`/v1/warehouses/${broken.warehouse_id}`).set(bearer(admin.api_key))).body.stored.unmetered).toBe(true);
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

test('a refused provisioning probe queues the next attempt within the window and gives up after it', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const pool = db();
  const queue = new Queue(QUEUES.provisioning, { connection: queueConnection(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'), prefix: queuePrefix(stack().redis_prefix) });
  const waitForJob = async (id: string, state: string) => {
    const deadline = Date.now() + 20_000;
    for (;;) {
      // The state first, then the job: a job read while active and completed after carries no return value.
      if ((await queue.getJobState(id)) === state) {
        const job = await queue.getJob(id);
        if (job) return job;
      }
      if (Date.now() > deadline) throw new Error(`job ${id} did not reach ${state}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  };
  try {
    // Without its blob bucket the probe cannot write, as when the store refuses a new catalog.
    const within = await newWarehouse(admin.api_key, project.project_id);
    const expired = await newWarehouse(admin.api_key, project.project_id);
    for (const w of [within, expired]) {
      await adminStorage().s3.send(new DeleteBucketCommand({ Bucket: w.blob_bucket }));
      await pool.query(`UPDATE warehouses SET status = 'provisioning' WHERE id = $1`, [w.warehouse_id]);
    }
    await queue.add('probe', { warehouse_id: within.warehouse_id, until: new Date(Date.now() + 600_000).toISOString() }, { jobId: `provision-${within.warehouse_id}-a4` });
    await queue.add('probe', { warehouse_id: expired.warehouse_id, until: new Date(Date.now() - 1000).toISOString() }, { jobId: `provision-${expired.warehouse_id}-a20` });

    const next = await waitForJob(`provision-${within.warehouse_id}-a5`, 'delayed');
    expect(next.opts.delay).toBe(30_000);
    expect(next.data).toEqual({ warehouse_id: within.warehouse_id, until: expect.any(String) });
    expect((await waitForJob(`provision-${within.warehouse_id}-a4`, 'completed')).returnvalue).toBe('retry queued');
    expect((await waitForJob(`provision-${expired.warehouse_id}-a20`, 'completed')).returnvalue).toBe('gave up');
    expect(await queue.getJob(`provision-${expired.warehouse_id}-a21`)).toBeUndefined();
    for (const w of [within, expired]) {
      expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.status).toBe('provisioning');
    }
    await next.remove();
  } finally {
    await queue.close();
    await pool.end();
  }
});
