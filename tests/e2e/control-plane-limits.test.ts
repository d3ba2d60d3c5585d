import { randomUUID } from 'node:crypto';
import { bearer, expectError, gateway, join, newOrg, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { newPrincipal, sql } from './helpers';

// Creation refusals that need a state the API cannot reach quickly (ten
// catalogs, 5 GB stored, a catalog mid-creation or mid-deletion): the state
// is written to the database, the refusal comes from the API.

async function fakeWarehouse(projectId: string, orgId: string | null, name: string, status: string, createdBy: string | null = null): Promise<string> {
  const id = randomUUID();
  // A `creating` row is one another request is creating now: it holds the claim, with time left on its lease.
  await sql(
    `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, created_by,
       creation_claim, creation_lease_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'x', 'x', '', 'x', 'x', '', 'x', $8,
       CASE WHEN $7 = 'creating' THEN 'req_elsewhere' END, CASE WHEN $7 = 'creating' THEN now() + interval '10 minutes' END)`,
    [id, name, projectId, orgId, `fake-${id}`, `fake-${id}-b`, status, createdBy]);
  return id;
}

test('org_required when the caller belongs to several organisations', async () => {
  const { admin } = await newOrgWithAdmin();
  const second = await newOrg();
  await join(second, admin, 'member');
  const res = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name: `p-${uniq()}` });
  expect((expectError(res, 400, 'org_required').available as unknown[]).length).toBe(2);
  const named = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name: `p-${uniq()}`, org_id: second.handle });
  expect(named.status).toBe(201);
  expect(named.body.org_id).toBe(second.org_id);
});

test('20 project creates at once: one name makes one project (already_exists); the plan\'s count holds exactly (limit_exceeded); another organisation is not counted', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const other = await newOrgWithAdmin();
  const create = (name: string, key = admin.api_key) => gateway().post('/v1/projects').set(bearer(key)).send({ name });
  const audited = async () => (await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'project.create' AND org_id = $1`, [org.org_id]))[0].n;

  const same = await Promise.all(Array.from({ length: 20 }, () => create('twin')));
  const made = same.filter((r) => r.status === 201);
  expect(made).toHaveLength(1);
  for (const r of same.filter((x) => x.status !== 201)) expect(expectError(r, 409, 'already_exists').project_id).toBe(made[0].body.project_id);
  expect(await audited()).toBe(1);

  // The plan's number lowered to 5 for this organisation: 20 distinct names at once make exactly 4 more.
  await sql(`INSERT INTO org_limits (org_id, plan, overrides) VALUES ($1, 'free', '{"projects": 5}')`, [org.org_id]);
  const many = await Promise.all(Array.from({ length: 20 }, (_, i) => create(`p${i}`)));
  expect(many.filter((r) => r.status === 201)).toHaveLength(4);
  for (const r of many.filter((x) => x.status !== 201)) expect(expectError(r, 409, 'limit_exceeded')).toMatchObject({ limit: 'projects', limit_value: 5, current: 5 });
  expect(await sql(`SELECT count(*)::int AS n FROM projects WHERE org_id = $1`, [org.org_id])).toEqual([{ n: 5 }]);
  expect(await audited()).toBe(5);
  // Another organisation's name and count are its own.
  expect((await create('twin', other.admin.api_key)).status).toBe(201);
}, 60_000);

test('limit_exceeded at ten catalogs per project, with limit_value and current', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  for (let i = 0; i < 10; i++) await fakeWarehouse(project.project_id, org.org_id, `filler_${i}`, 'ready');
  const res = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'eleventh' });
  expect(expectError(res, 409, 'limit_exceeded')).toMatchObject({ limit_value: 10, current: 10 });
  const list = await gateway().get('/v1/warehouses').query({ project: project.project_id }).set(bearer(admin.api_key));
  expect(list.body).toMatchObject({ count: 10, limit: 10, headroom: 0 });
});

test('quota_exceeded over the storage limit: catalog creation, table creation and credential vending refuse; reads work', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'q', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] } }).expect(201);
  await sql(`INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', 6000000000, 0, 1, 0, true)`, [w.warehouse_id]);
  const create = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'more' });
  expect(expectError(create, 409, 'quota_exceeded')).toMatchObject({ current: 6_000_000_000, limit_value: 5_368_709_120, scope: 'organization' });
  expectError(await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'q', name: 'u', schema: { type: 'struct', fields: [] } }), 409, 'quota_exceeded');
  expectError(await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'q', name: 't' }), 409, 'quota_exceeded');
  expect((await gateway().get('/v1/table').query({ warehouse: w.name, namespace: 'q', name: 't' }).set(bearer(admin.api_key))).status).toBe(200);
  const rejected = await sql(`SELECT data FROM audit_events WHERE action = 'quota.reject' AND org_id = $1`, [org.org_id]);
  expect(rejected.length).toBe(3);
});

test('creation_in_progress, name_reserved_until_teardown, and the tombstones of deleting and deleted catalogs', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const other = await newPrincipal('human');
  await join(org, other, 'member');
  const project = await newProject(admin.api_key);
  await fakeWarehouse(project.project_id, org.org_id, 'busy', 'creating', other.principal_id);
  const busy = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'busy' });
  expect(expectError(busy, 409, 'creation_in_progress').retry_after_seconds).toBe(5);
  expect(busy.headers['retry-after']).toBe('5');

  const deleting = await fakeWarehouse(project.project_id, org.org_id, 'going', 'deleting');
  const reserved = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'going' });
  expectError(reserved, 409, 'name_reserved_until_teardown');
  expect(reserved.headers['retry-after']).toBe('5');
  expect(expectError(await gateway().get(`/v1/warehouses/${deleting}`).set(bearer(admin.api_key)), 404, 'warehouse_deleting')).toMatchObject({ state: 'deleting', warehouse_id: deleting });
  const deleted = await fakeWarehouse(project.project_id, org.org_id, 'gone', 'deleted');
  await sql(`UPDATE warehouses SET table_bucket = $2 WHERE id = $1`, [deleted, `${org.handle}--gone`]);
  const leftover = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'gone' });
  expect(expectError(leftover, 409, 'bucket_leftover_from_deletion').bucket).toBe(`${org.handle}--gone`);
  expect(expectError(await gateway().get(`/v1/warehouses/${deleted}`).set(bearer(admin.api_key)), 404, 'warehouse_deleted')).toMatchObject({ state: 'deleted', storage_complete: true });
  // Someone outside the organisation learns nothing.
  expectError(await gateway().get(`/v1/warehouses/${deleted}`).set(bearer((await newPrincipal('human')).api_key)), 404, 'warehouse_not_found');
  // Deleting it again: in progress (warehouse-delete.test.ts holds the rest of deletion).
  expect(expectError(await gateway().delete(`/v1/warehouses/${deleting}`).set(bearer(admin.api_key)), 409, 'delete_in_progress').retry_after_seconds).toBe(5);
});
