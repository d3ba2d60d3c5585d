import { newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, sql } from './helpers';

// The organisation policy (Floe's shape; the spec names the route, its
// codes org_not_found and invalid_field, and 403 org_policy_forbids on the
// routes a policy can reserve): GET and PATCH /v1/orgs/{org_id}/policy, and
// its effect on the agent routes and publishing. Device approval and the
// OAuth decision are tested in device.test.ts and oauth-decision.test.ts.

const DEFAULTS = { agents: 'members', device_login: 'members', oauth_consent: 'members', public_catalogs: 'admins', second_factor: 'optional' };
const policyOf = (key: string, org: string) => gateway().get(`/v1/orgs/${org}/policy`).set(bearer(key));
const setPolicy = (key: string, org: string, body: unknown) => gateway().patch(`/v1/orgs/${org}/policy`).set(bearer(key)).send(body as object);

test('GET: the defaults for an organisation that never set one, readable by any member; another organisation is 404', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  for (const key of [admin.api_key, member.api_key]) {
    const res = await policyOf(key, org.org_id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ org_id: org.org_id, handle: org.handle, policy: DEFAULTS, defaults: DEFAULTS, updated_at: null, updated_by: null });
    expect(res.body.choices).toEqual({ agents: ['members', 'admins'], device_login: ['members', 'admins', 'nobody'], oauth_consent: ['members', 'admins', 'nobody'], public_catalogs: ['admins', 'nobody'], second_factor: ['optional', 'required'] });
  }
  expectError(await gateway().get(`/v1/orgs/${org.org_id}/policy`), 401, 'unauthorized');
  // Cross-tenant: an admin of another organisation reads and changes nothing here.
  const other = await newOrgWithAdmin();
  expectError(await policyOf(other.admin.api_key, org.org_id), 404, 'org_not_found');
  expectError(await setPolicy(other.admin.api_key, org.org_id, { agents: 'admins' }), 404, 'org_not_found');
  expect((await policyOf(admin.api_key, org.org_id)).body.policy).toEqual(DEFAULTS);
});

test('PATCH: an admin changes some fields (audited once with the previous values); refusals for members, unknown fields, bad values, nothing sent', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const member = await newMember(org);
  expectError(await setPolicy(member.api_key, org.org_id, { agents: 'admins' }), 403, 'insufficient_role');
  const unknown = expectError(await setPolicy(admin.api_key, org.org_id, { agents: 'admins', mfa: 'required' }), 400, 'invalid_field');
  expect(unknown).toMatchObject({ field: 'mfa', accepts: ['agents', 'device_login', 'oauth_consent', 'public_catalogs', 'second_factor'] });
  expect(expectError(await setPolicy(admin.api_key, org.org_id, { public_catalogs: 'members' }), 400, 'invalid_value').field).toBe('public_catalogs');
  expect(expectError(await setPolicy(admin.api_key, org.org_id, { agents: true }), 400, 'invalid_value').field).toBe('agents');
  expectError(await setPolicy(admin.api_key, org.org_id, {}), 400, 'missing_field');
  expect((await policyOf(admin.api_key, org.org_id)).body.policy).toEqual(DEFAULTS);

  const res = await setPolicy(admin.api_key, org.org_id, { agents: 'admins', device_login: 'nobody', oauth_consent: 'members' });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    policy: { ...DEFAULTS, agents: 'admins', device_login: 'nobody' }, updated: ['agents', 'device_login'],
    previous: { agents: 'members', device_login: 'members' }, updated_by: admin.principal_id, updated_at: expect.any(String),
  });
  // The same again changes nothing and writes no event.
  expect((await setPolicy(admin.api_key, org.org_id, { agents: 'admins' })).body.updated).toEqual([]);
  const events = await sql(`SELECT data FROM audit_events WHERE org_id = $1 AND action = 'org.update'`, [org.org_id]);
  expect(events.map((e) => e.data)).toEqual([{ changes: { policy: { agents: 'admins', device_login: 'nobody' } }, previous: { policy: { agents: 'members', device_login: 'members' } } }]);
  // A member reads what holds now.
  expect((await policyOf(member.api_key, org.org_id)).body.policy).toEqual({ ...DEFAULTS, agents: 'admins', device_login: 'nobody' });
});

test('two admins changing different fields at once: both land', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const second = await newMember(org, 'human', 'admin');
  const fields = [{ agents: 'admins' }, { public_catalogs: 'nobody' }, { oauth_consent: 'admins' }, { device_login: 'admins' }];
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => setPolicy(i % 2 ? admin.api_key : second.api_key, org.org_id, fields[i % 4])));
  expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect((await policyOf(admin.api_key, org.org_id)).body.policy).toEqual({ agents: 'admins', device_login: 'admins', oauth_consent: 'admins', public_catalogs: 'nobody', second_factor: 'optional' });
  // Each field changed exactly once.
  const events = await sql(`SELECT data FROM audit_events WHERE org_id = $1 AND action = 'org.update'`, [org.org_id]);
  expect(events.length).toBe(4);
});

test('agents reserved to admins: a member and a member token get 403 org_policy_forbids on create and edit; an admin still makes them; revoking stays open', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  const member = await newMember(org);
  const mine = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.api_key)).send({ name: `m-${uniq()}`, grants: [{ warehouse_id: w.warehouse_id, level: 'read' }] });
  expect(mine.status).toBe(201);
  expect((await setPolicy(admin.api_key, org.org_id, { agents: 'admins' })).status).toBe(200);

  const refused = expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.api_key)).send({ name: `m-${uniq()}` }), 403, 'org_policy_forbids');
  expect(refused).toMatchObject({ policy: { agents: 'admins' }, remedy: expect.stringContaining('admin') });
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(mine.body.api_key)).send({ name: `t-${uniq()}` }), 403, 'org_policy_forbids');
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}/agents/${mine.body.agent_id}`).set(bearer(member.api_key)).send({ grants: [] }), 403, 'org_policy_forbids');
  expect((await sql(`SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND joined_via = 'agent'`, [org.org_id]))[0].n).toBe(1);

  const byAdmin = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(admin.api_key)).send({ name: `a-${uniq()}` });
  expect(byAdmin.status).toBe(201);
  expect((await gateway().delete(`/v1/orgs/${org.org_id}/agents/${mine.body.agent_id}`).set(bearer(member.api_key))).status).toBe(200);
});

test('public catalogs switched off: even an admin gets 403 org_policy_forbids and the catalog stays private; switched back on, publishing works', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  expect((await setPolicy(admin.api_key, org.org_id, { public_catalogs: 'nobody' })).status).toBe(200);
  const refused = expectError(await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name }), 403, 'org_policy_forbids');
  expect(refused.policy).toEqual({ public_catalogs: 'nobody' });
  expect((await sql(`SELECT public_since FROM warehouses WHERE id = $1`, [w.warehouse_id]))[0].public_since).toBeNull();

  expect((await setPolicy(admin.api_key, org.org_id, { public_catalogs: 'admins' })).status).toBe(200);
  const published = await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: w.name });
  expect(published.status).toBe(200);
  expect((await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key))).status).toBe(200);
}, 60_000);
