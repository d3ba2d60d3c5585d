import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { db, newPrincipal, stack } from './helpers';

// Spec: GET /v1/connection, POST /v1/signup, POST /v1/onboard.

async function listNamespaces(clientId: string, clientSecret: string, warehouseId: string): Promise<number> {
  const tokenRes = await fetch(`${stack().catalog_url}/v1/oauth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  if (tokenRes.status !== 200) return tokenRes.status;
  const { access_token } = await tokenRes.json() as { access_token: string };
  return (await fetch(`${stack().catalog_url}/v1/${warehouseId}/namespaces`, { headers: bearer(access_token) })).status;
}

describe('GET /v1/connection', () => {
  test('each engine gets a working recipe with the credential that matches the level', async () => {
    const { org, admin } = await newOrgWithAdmin();
    const member = await newMember(org);
    const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
    const rw = /^t-[0-9a-f-]{36}$/;
    const ro = /^t-[0-9a-f-]{36}-ro$/;
    for (const engine of ['duckdb', 'pyiceberg', 'spark']) {
      const res = await gateway().get('/v1/connection').query({ warehouse: w.name, engine }).set(bearer(admin.api_key));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ warehouse_id: w.warehouse_id, warehouse: w.name, engine, level: 'write', catalog_uri: stack().catalog_url, s3: { endpoint: stack().s3_url, path_style: true } });
      expect(res.body.catalog_credential.client_id).toMatch(rw);
      expect(res.body.recipe).toContain(res.body.catalog_credential.client_secret);
      expect(res.body.recipe).toContain(stack().catalog_url);
    }
    const cloud = await gateway().get('/v1/connection').query({ warehouse_id: w.warehouse_id, engine: 'snowflake' }).set(bearer(admin.api_key));
    expect(cloud.body.level).toBe('read');
    expect(cloud.body.catalog_credential.client_id).toMatch(ro);

    const asRead = await gateway().get('/v1/connection').query({ warehouse: w.name, level: 'read' }).set(bearer(admin.api_key));
    expect(asRead.body.catalog_credential.client_id).toMatch(ro);
    const memberDefault = await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(member.api_key));
    expect(memberDefault.body).toMatchObject({ level: 'read' });
    expect(memberDefault.body.catalog_credential.client_id).toBe(asRead.body.catalog_credential.client_id);
    expect(expectError(await gateway().get('/v1/connection').query({ warehouse: w.name, level: 'write' }).set(bearer(member.api_key)), 403, 'forbidden').can_grant).toHaveLength(1);

    // The credentials work at the catalog; the read-only one cannot write.
    const write = (await gateway().get('/v1/connection').query({ warehouse: w.name }).set(bearer(admin.api_key))).body.catalog_credential;
    expect(await listNamespaces(write.client_id, write.client_secret, w.warehouse_id)).toBe(200);
    expect(await listNamespaces(asRead.body.catalog_credential.client_id, asRead.body.catalog_credential.client_secret, w.warehouse_id)).toBe(200);

    expect(expectError(await gateway().get('/v1/connection').query({ warehouse: w.name, engine: 'excel' }).set(bearer(admin.api_key)), 400, 'unsupported_engine').available).toEqual(['duckdb', 'pyiceberg', 'spark', 'snowflake']);
    expectError(await gateway().get('/v1/connection').query({ warehouse: 'nope' }).set(bearer(admin.api_key)), 404, 'warehouse_not_found');
  }, 60_000);

  test('level=read is for anyone who reads the catalog, not for a member whose read an admin revoked (docs/api.md)', async () => {
    const { org, admin } = await newOrgWithAdmin();
    const member = await newMember(org);
    const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
    const asked = () => gateway().get('/v1/connection').query({ warehouse: w.name, level: 'read' }).set(bearer(member.api_key));
    expect((await asked()).body.catalog_credential.client_id).toMatch(/-ro$/);
    expect((await gateway().delete(`/v1/warehouses/${w.warehouse_id}/grants/${member.principal_id}`).set(bearer(admin.api_key))).body.level).toBe('none');
    expect(expectError(await asked(), 403, 'forbidden').level).toBe('none');
    // Another organisation's admin does not see the catalog at all.
    const other = await newOrgWithAdmin();
    expectError(await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'read' }).set(bearer(other.admin.api_key)), 404, 'warehouse_not_found');
  });

  test('a catalog still provisioning answers 503 provisioning', async () => {
    const { admin } = await newOrgWithAdmin();
    const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
    const pool = db();
    try {
      await pool.query(`UPDATE warehouses SET status = 'provisioning' WHERE id = $1`, [w.warehouse_id]);
      const res = await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key));
      expect(expectError(res, 503, 'provisioning').retry_after_seconds).toBe(30);
      expect(res.headers['retry-after']).toBe('30');
    } finally {
      await pool.end();
    }
  });

  test('two catalogs of one name in different projects are ambiguous by name', async () => {
    const { admin } = await newOrgWithAdmin();
    const p1 = await newProject(admin.api_key);
    const p2 = await newProject(admin.api_key);
    const w = await newWarehouse(admin.api_key, p1.project_id);
    const pool = db();
    try {
      // Names are unique per organisation on creation; an older pair (made before that rule) is still answered.
      const { rows } = await pool.query(`SELECT org_id FROM warehouses WHERE id = $1`, [w.warehouse_id]);
      await pool.query(
        `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name)
         SELECT gen_random_uuid()::text, name, $2, org_id, table_bucket || '-old', blob_bucket || '-old', 'ready', 'x', 'x', '', 'x', 'x', '', 'x' FROM warehouses WHERE id = $1`, [w.warehouse_id, p2.project_id]);
      expect(rows[0].org_id).toBeTruthy();
    } finally {
      await pool.end();
    }
    const res = await gateway().get(`/v1/warehouses/${w.name}`).set(bearer(admin.api_key));
    const e = expectError(res, 409, 'ambiguous_name');
    expect((e.candidates as Array<{ warehouse_id: string }>).map((c) => c.warehouse_id)).toContain(w.warehouse_id);
    expect(e.candidates).toHaveLength(2);
    expect((e.candidates as Array<{ project_id: string }>).map((c) => c.project_id).sort()).toEqual([p1.project_id, p2.project_id].sort());
    expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).status).toBe(200);
  });
});

describe('POST /v1/signup and POST /v1/onboard', () => {
  test('sign-up answers every field once; refusals', async () => {
    const email = `new-${uniq()}@example.com`;
    const res = await gateway().post('/v1/signup').send({ email, workspace: 'Data Team', engine: 'duckdb', accept_terms: true });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      organization: { role: 'admin', joined_via: 'creator' },
      terms: { accepted: true },
      connection: { engine: 'duckdb', level: 'write', warehouse: 'lake' },
    });
    expect(res.body.api_key).toMatch(/^al_live_/);
    expect(res.body.principal_id).toMatch(/^p_/);
    expect(res.body.next.length).toBeGreaterThan(0);
    const list = await gateway().get('/v1/warehouses').set(bearer(res.body.api_key));
    expect(list.body.warehouses).toEqual([expect.objectContaining({ name: 'lake', status: 'ready', warehouse_id: res.body.warehouse_id, bucket: expect.stringMatching(/^data-team(-\d+)?--lake$/) })]);
    const projects = await gateway().get('/v1/projects').set(bearer(res.body.api_key));
    expect(projects.body.projects).toEqual([expect.objectContaining({ project_id: res.body.project_id, name: 'Data Team' })]);

    expectError(await gateway().post('/v1/signup').send({ email, workspace: 'again', accept_terms: true }), 409, 'already_exists');
    expectError(await gateway().post('/v1/signup').send({ email: `x-${uniq()}@example.com`, workspace: 'w', accept_terms: 'yes' }), 400, 'terms_required');
    expect(expectError(await gateway().post('/v1/signup').send({ email: 'not-an-address', workspace: 'w', accept_terms: true }), 400, 'invalid_value').field).toBe('email');
    expect(expectError(await gateway().post('/v1/signup').send({ email: `y-${uniq()}@example.com`, accept_terms: true }), 400, 'missing_field').field).toBe('workspace');

    // Onboarding a signed-up person creates nothing more.
    const again = await gateway().post('/v1/onboard').set(bearer(res.body.api_key)).send({});
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ created: { organization: false, project: false, warehouse: false }, warehouse_id: res.body.warehouse_id, project_id: res.body.project_id });
    expect(again.body.connection).toMatchObject({ state: 'ready', warehouse_id: res.body.warehouse_id });
    // While lake provisions, the answer carries its state instead of a recipe.
    const pool = db();
    try {
      await pool.query(`UPDATE warehouses SET status = 'provisioning' WHERE id = $1`, [res.body.warehouse_id]);
      const waiting = await gateway().post('/v1/onboard').set(bearer(res.body.api_key)).send({});
      expect(waiting.status).toBe(200);
      expect(waiting.body.connection).toEqual({
        state: 'provisioning', warehouse_id: res.body.warehouse_id, warehouse: 'lake', retry_after_seconds: 30, note: expect.stringContaining(`GET /v1/connection?warehouse=${res.body.warehouse_id}`),
      });
    } finally {
      await pool.query(`UPDATE warehouses SET status = 'ready' WHERE id = $1`, [res.body.warehouse_id]);
      await pool.end();
    }
  }, 60_000);

  test('onboarding a principal without an organisation makes one, a project and lake; twice is the same', async () => {
    const p = await newPrincipal('human');
    // A person who has not accepted the Terms in force accepts them here.
    expectError(await gateway().post('/v1/onboard').set(bearer(p.api_key)).send({ organization_name: `Onboard ${uniq()}` }), 400, 'terms_required');
    const first = await gateway().post('/v1/onboard').set(bearer(p.api_key)).send({ organization_name: `Onboard ${uniq()}`, engine: 'spark', accept_terms: true });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ created: { organization: true, project: true, warehouse: true }, organization: { role: 'admin' }, connection: { engine: 'spark' } });
    const second = await gateway().post('/v1/onboard').set(bearer(p.api_key)).send({});
    expect(second.body).toMatchObject({ created: { organization: false, project: false, warehouse: false }, warehouse_id: first.body.warehouse_id });

    const other = await newPrincipal('human');
    const taken = await gateway().post('/v1/onboard').set(bearer(other.api_key)).send({ handle: first.body.organization.handle, accept_terms: true });
    expect(expectError(taken, 409, 'handle_taken').suggestion).toMatch(new RegExp(`^${first.body.organization.handle}-\\d+$`));
    expectError(await gateway().post('/v1/onboard').set(bearer(other.api_key)).send({ handle: 'a--b', accept_terms: true }), 400, 'invalid_value');
  }, 60_000);
  test('20 onboardings at once by one person: one organisation, one project, one lake; every answer 200 with the same ids', async () => {
    const p = await newPrincipal('human');
    const answers = await Promise.all(Array.from({ length: 20 }, () => gateway().post('/v1/onboard').set(bearer(p.api_key)).send({ organization_name: `Race ${uniq()}`, accept_terms: true })));
    expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
    expect(new Set(answers.map((a) => a.body.organization.org_id)).size).toBe(1);
    expect(new Set(answers.map((a) => a.body.warehouse_id)).size).toBe(1);
    expect(answers.filter((a) => a.body.created.organization)).toHaveLength(1);
    expect(answers.filter((a) => a.body.created.warehouse)).toHaveLength(1);
    const pool = db();
    try {
      const orgs = await pool.query(`SELECT count(*)::int AS n FROM memberships WHERE principal_id = $1`, [p.principal_id]);
      expect(orgs.rows[0].n).toBe(1);
      const made = await pool.query(`SELECT (SELECT count(*)::int FROM projects WHERE org_id = $1) AS projects, (SELECT count(*)::int FROM warehouses WHERE org_id = $1) AS warehouses`, [answers[0].body.organization.org_id]);
      expect(made.rows[0]).toEqual({ projects: 1, warehouses: 1 });
    } finally {
      await pool.end();
    }
  }, 90_000);
});
