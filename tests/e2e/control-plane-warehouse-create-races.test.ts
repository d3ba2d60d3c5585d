import { randomUUID } from 'node:crypto';
import { adminStorage } from '../support/store';
import { bearer, expectError, gateway, newOrgWithAdmin, newProject, uniq, type TestOrg } from './control-plane-helpers';
import { db } from './helpers';

// Spec: POST /v1/warehouses under concurrency. One create of a name wins (201)
// and makes the storage once; the others answer 409 `creation_in_progress`
// (Retry-After 5) while it runs and `already_exists` after. A creation whose
// claim ran out (a creator that died) is taken over by the next create.

type RgwUser = { user_id: string; keys: Array<{ user: string; access_key: string }> };

const bucketOf = (org: TestOrg, name: string) => `${org.handle}--${name.replace(/_/g, '-')}`;

async function rgwUser(uid: string): Promise<RgwUser | null> {
  return adminStorage().admin.call<RgwUser>('GET', 'user', { uid }, 'get identity');
}

async function rows<T extends Record<string, unknown>>(sql: string, values: unknown[]): Promise<T[]> {
  const pool = db();
  try {
    return (await pool.query<T>(sql, values)).rows;
  } finally {
    await pool.end();
  }
}

/** The storage of one warehouse exists once: both buckets, each identity with exactly the one key the row keeps. */
async function expectStorageMadeOnce(warehouseId: string, bucket: string): Promise<void> {
  expect(await adminStorage().bucketExists(bucket)).toBe(true);
  expect(await adminStorage().bucketExists(`${bucket}--blobs`)).toBe(true);
  const [row] = await rows<{ storage_access_key: string; storage_ro_access_key: string }>(
    `SELECT storage_access_key, storage_ro_access_key FROM warehouses WHERE id = $1`, [warehouseId]);
  const rw = await rgwUser(`t-${warehouseId}`);
  const ro = await rgwUser(`t-${warehouseId}-ro`);
  expect(rw?.keys.map((k) => k.access_key)).toEqual([row.storage_access_key]);
  expect(ro?.keys.map((k) => k.access_key)).toEqual([row.storage_ro_access_key]);
}

test('twenty concurrent creates of one name: one 201, nineteen 409 (creation_in_progress or already_exists), one audit event, storage made once', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const name = `race_${uniq()}`;
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway().post('/v1/warehouses').set(bearer(admin.api_key))
    .set('Idempotency-Key', `race-${name}-${i}`).send({ project_id: project.project_id, name })));

  const statuses = answers.map((r) => r.status).sort();
  expect(statuses).toEqual([201, ...Array(19).fill(409)]);
  const won = answers.find((r) => r.status === 201)!;
  expect(won.body).toMatchObject({ name, project_id: project.project_id, status: 'ready', bucket: bucketOf(org, name), storage_probe: { table: 'ok', blob: 'ok' } });
  const id = won.body.warehouse_id as string;
  for (const r of answers.filter((x) => x.status === 409)) {
    const code = r.body?.error?.code;
    expect(['creation_in_progress', 'already_exists']).toContain(code);
    const err = expectError(r, 409, code);
    if (code === 'creation_in_progress') {
      expect(err.retry_after_seconds).toBe(5);
      expect(r.headers['retry-after']).toBe('5');
    } else {
      expect(err).toMatchObject({ warehouse_id: id, bucket: bucketOf(org, name) });
    }
  }

  const audit = await gateway().get('/v1/audit').query({ action: 'warehouse.create' }).set(bearer(admin.api_key));
  expect(audit.status).toBe(200);
  expect(audit.body.events.map((e: { target_id: string }) => e.target_id)).toEqual([id]);
  const made = await rows<{ id: string; status: string; creation_claim: string | null }>(
    `SELECT id, status, creation_claim FROM warehouses WHERE name = $1 AND org_id = $2`, [name, org.org_id]);
  expect(made).toEqual([{ id, status: 'ready', creation_claim: null }]);
  await expectStorageMadeOnce(id, bucketOf(org, name));
  // Afterwards the name answers already_exists.
  const again = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name });
  expect(expectError(again, 409, 'already_exists')).toMatchObject({ warehouse_id: id });
}, 60_000);

/** A `creating` row as a create that claimed it writes it, then stopped (storage not made). */
async function leftCreating(org: TestOrg, projectId: string, createdBy: string, name: string, lease: 'live' | 'expired'): Promise<string> {
  const id = randomUUID();
  const bucket = bucketOf(org, name);
  await rows(
    `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, default_format_version, status,
       storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, created_by,
       creation_claim, creation_lease_until, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, 2, 'creating', $7, '', '', $8, '', '', $9, $10, 'req_of_a_dead_creator',
       CASE WHEN $11 THEN now() + interval '10 minutes' ELSE now() - interval '1 second' END, now() - interval '3 minutes')`,
    [id, name, projectId, org.org_id, bucket, `${bucket}--blobs`, `t-${id}`, `t-${id}-ro`, `w-${id}`, createdBy, lease === 'live']);
  return id;
}

test('a creation whose claim still stands answers 409 creation_in_progress with Retry-After 5, and writes nothing', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const name = `held_${uniq()}`;
  const id = await leftCreating(org, project.project_id, admin.principal_id, name, 'live');
  const res = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name });
  expect(expectError(res, 409, 'creation_in_progress').retry_after_seconds).toBe(5);
  expect(res.headers['retry-after']).toBe('5');
  expect(await rows(`SELECT creation_claim FROM warehouses WHERE id = $1`, [id])).toEqual([{ creation_claim: 'req_of_a_dead_creator' }]);
  expect(await adminStorage().bucketExists(bucketOf(org, name))).toBe(false);
});

test('a creation whose claim ran out (its creator died) is taken over by the next create, by anyone in the organisation, and finished once', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const name = `orphan_${uniq()}`;
  // The dead creator was someone else; the one who comes next finishes the catalog and becomes its creator.
  const id = await leftCreating(org, project.project_id, 'p_someone_gone', name, 'expired');
  const res = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name, default_format_version: 3 });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ warehouse_id: id, name, status: 'ready', default_format_version: 3, bucket: bucketOf(org, name), storage_probe: { table: 'ok', blob: 'ok' } });
  expect(await rows(`SELECT status, created_by, creation_claim, creation_lease_until FROM warehouses WHERE id = $1`, [id]))
    .toEqual([{ status: 'ready', created_by: admin.principal_id, creation_claim: null, creation_lease_until: null }]);
  await expectStorageMadeOnce(id, bucketOf(org, name));
  const audit = await gateway().get('/v1/audit').query({ action: 'warehouse.create' }).set(bearer(admin.api_key));
  expect(audit.body.events.map((e: { target_id: string }) => e.target_id)).toEqual([id]);
  const listed = await gateway().get('/v1/warehouses').query({ project: project.project_id }).set(bearer(admin.api_key));
  expect(listed.body.warehouses.map((w: { warehouse_id: string; status: string }) => [w.warehouse_id, w.status])).toEqual([[id, 'ready']]);
}, 30_000);
