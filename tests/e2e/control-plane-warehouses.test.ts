import { bearer, expectError, gateway, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';

// Spec: Projects and Warehouses (create, list, get, patch) through the gateway.

describe('projects', () => {
  test('create, list, placement refusals, already_exists, idempotency', async () => {
    const { org, admin } = await newOrgWithAdmin();
    const name = `proj-${uniq()}`;
    const key = `idem-${uniq()}`;
    const created = await gateway().post('/v1/projects').set(bearer(admin.api_key)).set('Idempotency-Key', key).send({ name });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name, provider: 'ceph', region: 'local-1', placement_immutable: true, org_id: org.org_id });
    expect(created.body.project_id).toMatch(/^prj_[0-9a-f]{24}$/);

    const replay = await gateway().post('/v1/projects').set(bearer(admin.api_key)).set('Idempotency-Key', key).send({ name });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(created.body);

    const reused = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).set('Idempotency-Key', key).send({ project_id: name, name: 'x' });
    expectError(reused, 409, 'idempotency_key_reused');

    const again = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name });
    expect(expectError(again, 409, 'already_exists').project_id).toBe(created.body.project_id);

    const elsewhere = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name: `p-${uniq()}`, region: 'mars-1' });
    expect(expectError(elsewhere, 400, 'unsupported_placement').available).toEqual([{ provider: 'ceph', region: 'local-1' }]);

    const noOrg = await gateway().post('/v1/projects').set(bearer(admin.api_key)).send({ name: `p-${uniq()}`, org_id: 'org_nope' });
    expectError(noOrg, 404, 'org_not_found');

    const list = await gateway().get('/v1/projects').set(bearer(admin.api_key));
    expect(list.status).toBe(200);
    expect(list.body.projects.map((p: { project_id: string }) => p.project_id)).toEqual([created.body.project_id]);
  });
});

describe('warehouses', () => {
  test('create provisions both buckets and answers ready; list and get show it by id or name', async () => {
    const { org, admin } = await newOrgWithAdmin();
    const project = await newProject(admin.api_key);
    const name = `sales_${uniq()}`;
    const w = await newWarehouse(admin.api_key, project.name, name);
    expect(w).toMatchObject({
      name, project_id: project.project_id, bucket: `${org.handle}--${name.replace(/_/g, '-')}`,
      blob_bucket: `${org.handle}--${name.replace(/_/g, '-')}--blobs`, default_format_version: 2,
      maintenance: { compaction: true, target_file_size_mb: 128, snapshot_retention_days: 7, max_snapshots: 20, disableable: false },
      storage_probe: { table: 'ok', blob: 'ok' },
    });
    const list = await gateway().get(`/v1/warehouses?project=${project.name}`).set(bearer(admin.api_key));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ project: project.name, project_id: project.project_id, count: 1, limit: 10, headroom: 9 });
    expect(list.body.warehouses[0]).toMatchObject({ warehouse_id: w.warehouse_id, my_level: 'write', my_via: 'admin', status: 'ready', public: false });
    const byName = await gateway().get(`/v1/warehouses/${name}`).set(bearer(admin.api_key));
    expect(byName.status).toBe(200);
    expect(byName.body).toMatchObject({ warehouse_id: w.warehouse_id, warehouse_name: w.bucket, provider: 'ceph', region: 'local-1' });
  });

  test('name refusals: invalid_name with suggestion, name_too_long_for_bucket, already_exists, invalid_value', async () => {
    const { org, admin } = await newOrgWithAdmin();
    const project = await newProject(admin.api_key);
    const bad = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'Sales-Data_' });
    expect(expectError(bad, 400, 'invalid_name').suggestion).toBe('sales_data');
    const long = 'a'.repeat(60);
    const tooLong = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: long });
    const e = expectError(tooLong, 400, 'name_too_long_for_bucket');
    expect(e.max_name_length).toBe(63 - org.handle.length - 2 - '--blobs'.length);
    expect(e.bucket_would_be).toBe(`${org.handle}--${long}--blobs`);
    const fv = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: 'ok_name', default_format_version: 4 });
    expect(Object.keys(expectError(fv, 400, 'invalid_value').versions as object)).toEqual(['2', '3']);
    const w = await newWarehouse(admin.api_key, project.project_id);
    const dup = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project.project_id, name: w.name });
    expect(expectError(dup, 409, 'already_exists')).toMatchObject({ warehouse_id: w.warehouse_id, bucket: w.bucket });
    const none = await gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: 'no-such-project', name: 'x' });
    expectError(none, 404, 'project_not_found');
  });
});
