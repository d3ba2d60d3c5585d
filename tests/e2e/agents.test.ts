import { bearer, db, expectError, gateway, identity, newPrincipal, stack } from './helpers';
import { join, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq, type TestOrg } from './control-plane-helpers';

// Spec: Organisations and agents — token records. An agent's key sees only
// the catalogs it was granted (404 elsewhere), at the granted level; admins
// give anything, members at most their own level; edits replace grants and
// confine a legacy agent; revoking refuses every key at once.

interface Catalogs { org: TestOrg; adminKey: string; adminId: string; projectId: string; a: { warehouse_id: string; name: string }; b: { warehouse_id: string; name: string } }

async function orgWithTwoCatalogs(): Promise<Catalogs> {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const a = await newWarehouse(admin.api_key, project.project_id, `wa_${uniq()}`);
  const b = await newWarehouse(admin.api_key, project.project_id, `wb_${uniq()}`);
  return { org, adminKey: admin.api_key, adminId: admin.principal_id, projectId: project.project_id, a, b };
}

async function auditOf(key: string, orgId: string, action: string) {
  const res = await gateway().get('/v1/audit').query({ org_id: orgId, action, limit: 100 }).set(bearer(key));
  expect(res.status).toBe(200);
  return res.body.events as Array<{ action: string; target_id: string; data: Record<string, unknown> }>;
}

let shared: Catalogs;
beforeAll(async () => { shared = await orgWithTwoCatalogs(); }, 60_000);

test('an admin makes an agent confined to one catalog at read: its key sees that catalog only, read-only, and nothing else', async () => {
  const { org, adminKey, adminId, a, b } = shared;
  const res = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `etl-${uniq()}`, grants: [{ warehouse_id: a.name, level: 'read' }] });
  expect(res.status).toBe(201);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toMatchObject({
    agent_id: expect.stringMatching(/^p_/), kind: 'agent', role: 'member', status: 'active', org_id: org.org_id, confined: true,
    grants: [{ warehouse_id: a.warehouse_id, name: a.name, level: 'read' }],
    created_by: { principal_id: adminId, kind: 'human' },
    api_key: expect.stringMatching(/^al_live_/), key_id: expect.any(String),
    connection: { agent_id: res.body.agent_id, org_id: org.org_id, role: 'member', warehouses: [{ warehouse_id: a.warehouse_id, name: a.name, level: 'read' }] },
  });
  const key = res.body.api_key as string;

  const list = await gateway().get('/v1/warehouses').set(bearer(key));
  expect(list.status).toBe(200);
  expect(list.body.warehouses.map((w: { warehouse_id: string; my_level: string; my_via: string }) => [w.warehouse_id, w.my_level, w.my_via])).toEqual([[a.warehouse_id, 'read', 'grant']]);
  expectError(await gateway().get(`/v1/warehouses/${b.warehouse_id}`).set(bearer(key)), 404, 'warehouse_not_found');
  expectError(await gateway().get('/v1/connection').query({ warehouse: b.name }).set(bearer(key)), 404, 'warehouse_not_found');
  expectError(await gateway().get('/v1/namespaces').query({ warehouse: b.warehouse_id }).set(bearer(key)), 404, 'warehouse_not_found');
  expectError(await gateway().get('/v1/sinks').query({ warehouse_id: b.warehouse_id }).set(bearer(key)), 404, 'warehouse_not_found');
  const conn = await gateway().get('/v1/connection').query({ warehouse: a.name, engine: 'pyiceberg' }).set(bearer(key));
  expect(conn.status).toBe(200);
  expect(JSON.stringify(conn.body)).toMatch(/t-[0-9a-f-]+-ro/);
  expectError(await gateway().get('/v1/connection').query({ warehouse: a.name, level: 'write' }).set(bearer(key)), 403, 'forbidden');
  expectError(await gateway().patch(`/v1/warehouses/${a.warehouse_id}`).set(bearer(key)).send({ default_format_version: 3 }), 403, 'forbidden');
  expectError(await gateway().post(`/v1/warehouses/${a.warehouse_id}/rotate`).set(bearer(key)), 403, 'forbidden');

  // The organisation sees the agent; the key never again.
  const got = await gateway().get(`/v1/orgs/${org.org_id}/agents/${res.body.name}`).set(bearer(adminKey));
  expect(got.status).toBe(200);
  expect(got.body).toMatchObject({ agent_id: res.body.agent_id, grants: [{ warehouse_id: a.warehouse_id, name: a.name, level: 'read' }], keys: [{ key_id: res.body.key_id, revoked_at: null }] });
  expect(got.body.last_key_use).toMatchObject({ key_id: res.body.key_id, at: expect.any(String) });
  expect(JSON.stringify(got.body)).not.toContain(key);
  const all = await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey));
  expect(all.body.agents.map((x: { agent_id: string }) => x.agent_id)).toContain(res.body.agent_id);
  expect(JSON.stringify(all.body)).not.toContain(key);
  expect((await auditOf(adminKey, org.org_id, 'agent.create')).find((e) => e.target_id === res.body.agent_id)?.data).toMatchObject({ role: 'member', key_id: res.body.key_id });
}, 60_000);

test('an admin token sees every catalog and may grant itself; a member token sees its grants only and cannot edit itself', async () => {
  const { org, adminKey, a, b } = shared;
  const admin = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `ops-${uniq()}`, role: 'owner' });
  expect(admin.status).toBe(201);
  expect(admin.body.role).toBe('admin');
  expect(admin.body.grants.map((g: { level: string }) => g.level)).toEqual(['write', 'write']);
  const seen = await gateway().get('/v1/warehouses').set(bearer(admin.body.api_key));
  expect(seen.body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id).sort()).toEqual([a.warehouse_id, b.warehouse_id].sort());
  const self = await gateway().patch(`/v1/orgs/${org.org_id}/agents/${admin.body.agent_id}`).set(bearer(admin.body.api_key)).send({ grants: [{ warehouse_id: a.warehouse_id, level: 'write' }] });
  expect(self.status).toBe(200);
  expect(self.body).toMatchObject({ updated: [], role: 'admin' });

  const member = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `bot-${uniq()}`, grants: [{ warehouse_id: b.warehouse_id, level: 'write' }] });
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}/agents/${member.body.agent_id}`).set(bearer(member.body.api_key)).send({ grants: [{ warehouse_id: a.warehouse_id, level: 'write' }] }), 403, 'forbidden');
  // A member token is a member of the organisation: it reads the agents, but makes no admin agent.
  expect((await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.body.api_key))).status).toBe(200);
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.body.api_key)).send({ name: `x-${uniq()}`, role: 'admin' }), 403, 'insufficient_role');
  // It gives at most what it holds: write on b, nothing on a.
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.body.api_key)).send({ name: `x-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] }), 404, 'warehouse_not_found');
  const sub = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(member.body.api_key)).send({ name: `sub-${uniq()}`, grants: [{ warehouse_id: b.warehouse_id, level: 'write' }] });
  expect(sub.status).toBe(201);
  expect(sub.body.created_by.principal_id).toBe(member.body.agent_id);
}, 60_000);

test('a person who is a member gives at most their own level and only the member role; strangers and bad input are refused', async () => {
  const { org, adminKey, a, b } = shared;
  const person = await newMember(org);
  const tooMuch = expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(person.api_key)).send({ name: `w-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'write' }] }), 403, 'forbidden');
  expect(tooMuch).toMatchObject({ level: 'read', needed: 'write', can_grant: expect.any(Array) });
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(person.api_key)).send({ name: `w-${uniq()}`, role: 'admin' }), 403, 'insufficient_role');
  const ok = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(person.api_key)).send({ name: `r-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  expect(ok.status).toBe(201);
  // The member changes their own agent within their level, not an agent someone else made.
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}/agents/${ok.body.agent_id}`).set(bearer(person.api_key)).send({ grants: [{ warehouse_id: b.warehouse_id, level: 'write' }] }), 403, 'forbidden');
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}/agents/${ok.body.agent_id}`).set(bearer(person.api_key)).send({ role: 'admin' }), 403, 'insufficient_role');
  const theirs = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `adm-${uniq()}` });
  expectError(await gateway().delete(`/v1/orgs/${org.org_id}/agents/${theirs.body.agent_id}`).set(bearer(person.api_key)), 403, 'insufficient_role');

  // Names, unknown catalogs and records, strangers, other organisations' catalogs, the older list.
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: ok.body.name }), 409, 'already_exists');
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `u-${uniq()}`, grants: [{ warehouse_id: 'no_such', level: 'read' }] }), 404, 'warehouse_not_found');
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `u-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'admin' }] }), 400, 'invalid_value');
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ grants: [] }), 400, 'missing_field');
  for (const verb of ['get', 'patch', 'delete'] as const) {
    expectError(await gateway()[verb](`/v1/orgs/${org.org_id}/agents/p_nobody`).set(bearer(adminKey)).send({ name: 'x' }), 404, 'token_not_found');
  }
  const other = await orgWithTwoCatalogs();
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `u-${uniq()}`, grants: [{ warehouse_id: other.a.warehouse_id, level: 'read' }] }), 404, 'warehouse_not_found');
  expectError(await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(other.adminKey)), 404, 'org_not_found');
  expectError(await gateway().get(`/v1/orgs/${org.org_id}/agents/${ok.body.agent_id}`).set(bearer(other.adminKey)), 404, 'org_not_found');
  expectError(await gateway().delete(`/v1/orgs/${org.org_id}/agents/${ok.body.agent_id}`).set(bearer(other.adminKey)), 404, 'org_not_found');
  expectError(await gateway().get(`/v1/orgs/${other.org.org_id}/agents/${ok.body.agent_id}`).set(bearer(other.adminKey)), 404, 'token_not_found');
  const legacy = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `l-${uniq()}`, warehouse_ids: [a.name] });
  expect(legacy.status).toBe(201);
  expect(legacy.body).toMatchObject({ grants: [{ warehouse_id: a.warehouse_id, level: 'write' }], deprecation: expect.stringContaining('grants') });
}, 90_000);

test('PATCH replaces grants and is audited with the previous role; editing a legacy unconfined agent confines it', async () => {
  const { org, adminKey, a, b } = shared;
  const made = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `p-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  const newName = `p2-${uniq()}`;
  const edited = await gateway().patch(`/v1/orgs/${org.org_id}/agents/${made.body.name}`).set(bearer(adminKey)).send({ name: newName, role: 'admin', grants: [{ warehouse_id: b.warehouse_id, level: 'write' }] });
  expect(edited.status).toBe(200);
  expect(edited.body).toMatchObject({ name: newName, role: 'admin', updated: ['name', 'role', 'grants'], previous: { role: 'member', grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] } });
  const back = await gateway().patch(`/v1/orgs/${org.org_id}/agents/${made.body.agent_id}`).set(bearer(adminKey)).send({ role: 'member' });
  expect(back.body.grants).toEqual([{ warehouse_id: b.warehouse_id, name: b.name, level: 'write' }]);
  const events = await auditOf(adminKey, org.org_id, 'agent.update');
  expect(events.filter((e) => e.target_id === made.body.agent_id).map((e) => [e.data.role, e.data.previous_role])).toEqual([['member', 'admin'], ['admin', 'member']]);

  // A legacy agent writes every catalog via `agent` until an edit confines it to what it is given.
  const old = await newPrincipal('agent');
  await join(org, old, 'member', { confined: false });
  const before = await gateway().get(`/v1/warehouses/${a.warehouse_id}`).set(bearer(old.api_key));
  expect(before.body).toMatchObject({ my_level: 'write', my_via: 'agent' });
  const confined = await gateway().patch(`/v1/orgs/${org.org_id}/agents/${old.principal_id}`).set(bearer(adminKey)).send({ grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  expect(confined.body).toMatchObject({ confined: true, updated: ['grants', 'confined'], previous: { confined: false } });
  expect((await gateway().get(`/v1/warehouses/${a.warehouse_id}`).set(bearer(old.api_key))).body).toMatchObject({ my_level: 'read', my_via: 'grant' });
  expectError(await gateway().get(`/v1/warehouses/${b.warehouse_id}`).set(bearer(old.api_key)), 404, 'warehouse_not_found');
}, 60_000);

test('DELETE revokes every key at once (the next call is 401) and suspends the agent; 20 at once revoke once; no grant for it after', async () => {
  const { org, adminKey, a } = shared;
  const made = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `d-${uniq()}`, grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  const key = made.body.api_key as string;
  const token = (await gateway().post('/v1/tokens').send({ api_key: key })).body.access_token as string;
  expect((await gateway().get('/v1/warehouses').set(bearer(key))).status).toBe(200);

  const all = await Promise.all(Array.from({ length: 20 }, () => gateway().delete(`/v1/orgs/${org.org_id}/agents/${made.body.agent_id}`).set(bearer(adminKey))));
  expect(all.map((r) => r.status)).toEqual(Array(20).fill(200));
  expect(all.filter((r) => r.body.already_revoked === false)).toHaveLength(1);
  expect(all.find((r) => r.body.already_revoked === false)!.body).toMatchObject({ status: 'revoked', revoked: true, keys_revoked: 1, grants_removed: 1, grants: [] });
  expect((await auditOf(adminKey, org.org_id, 'agent.revoke')).filter((e) => e.target_id === made.body.agent_id)).toHaveLength(1);

  expectError(await gateway().get('/v1/warehouses').set(bearer(key)), 401, 'api_key_revoked');
  expectError(await gateway().get('/v1/warehouses').set(bearer(token)), 401, 'api_key_revoked');
  const listed = await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey));
  expect(listed.body.agents.map((x: { agent_id: string }) => x.agent_id)).not.toContain(made.body.agent_id);
  const withRevoked = await gateway().get(`/v1/orgs/${org.org_id}/agents`).query({ include_revoked: 'true' }).set(bearer(adminKey));
  expect(withRevoked.body.agents.find((x: { agent_id: string }) => x.agent_id === made.body.agent_id)).toMatchObject({ status: 'revoked', grants: [] });
  expectError(await gateway().put(`/v1/warehouses/${a.warehouse_id}/grants/${made.body.agent_id}`).set(bearer(adminKey)).send({ level: 'read' }), 409, 'principal_inactive');
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}/agents/${made.body.agent_id}`).set(bearer(adminKey)).send({ name: 'again' }), 404, 'token_not_found');
}, 60_000);

test('20 creates of one name at once make one agent', async () => {
  const { org, adminKey } = shared;
  const name = `race-${uniq()}`;
  const all = await Promise.all(Array.from({ length: 20 }, () => gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name })));
  expect(all.filter((r) => r.status === 201)).toHaveLength(1);
  expect(all.filter((r) => r.status === 409 && r.body.error.code === 'already_exists')).toHaveLength(19);
  const pool = db();
  try {
    const { rows } = await pool.query(
      `SELECT count(*)::int AS n FROM memberships m JOIN principals p ON p.id = m.principal_id WHERE m.org_id = $1 AND p.display_name = $2`, [org.org_id, name]);
    expect(rows[0].n).toBe(1);
    // The losers' principals joined nothing and hold no live key.
    const { rows: keys } = await pool.query(
      `SELECT count(*)::int AS n FROM api_keys k JOIN principals p ON p.id = k.principal_id WHERE p.display_name = $1 AND k.revoked_at IS NULL`, [name]);
    expect(keys[0].n).toBe(1);
  } finally {
    await pool.end();
  }
}, 90_000);

test('20 renames at once of two agents to one name: one agent takes it (its renames 200), the other\'s 409 already_exists', async () => {
  const { org, adminKey } = shared;
  const make = async () => (await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey)).send({ name: `r-${uniq()}` }).expect(201)).body.agent_id as string;
  const agents = [await make(), await make()];
  const name = `renamed-${uniq()}`;
  const all = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway().patch(`/v1/orgs/${org.org_id}/agents/${agents[i % 2]}`).set(bearer(adminKey)).send({ name })));
  const winner = all.find((r) => r.status === 200)!.body.agent_id as string;
  all.forEach((r, i) => {
    if (agents[i % 2] === winner) expect([r.status, r.body.name]).toEqual([200, name]);
    else expect(expectError(r, 409, 'already_exists').agent_id).toBe(winner);
  });
  const named = await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey));
  expect(named.body.agents.filter((a: { name: string }) => a.name === name).map((a: { agent_id: string }) => a.agent_id)).toEqual([winner]);
  expect((await gateway().get(`/v1/orgs/${org.org_id}/agents/${name}`).set(bearer(adminKey))).body.agent_id).toBe(winner);
}, 60_000);

test('a token whose creator left the organisation makes no tokens (creator_revoked)', async () => {
  const { org, adminKey } = shared;
  const second = await newMember(org, 'human', 'admin');
  const made = await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(second.api_key)).send({ name: `c-${uniq()}`, role: 'admin' });
  expect(made.status).toBe(201);
  expect((await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(made.body.api_key)).send({ name: `c2-${uniq()}` })).status).toBe(201);
  expect((await gateway().delete(`/v1/orgs/${org.org_id}/members/${second.principal_id}`).set(bearer(adminKey))).status).toBe(200);
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(made.body.api_key)).send({ name: `c3-${uniq()}` }), 403, 'creator_revoked');
}, 60_000);

// Issue 27: an agent holds no more than its maker holds now, judged on every request.

/** POST …/agents as `key`: the made agent's id and key. */
async function agentBy(key: string, orgId: string, body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await gateway().post(`/v1/orgs/${orgId}/agents`).set(bearer(key)).send({ name: `m-${uniq()}`, ...body });
  expect(res.status).toBe(201);
  return { id: res.body.agent_id, key: res.body.api_key };
}

/** The caller's level on a catalog, or the refusal's code. */
async function levelOn(key: string, warehouseId: string): Promise<string> {
  const res = await gateway().get(`/v1/warehouses/${warehouseId}`).set(bearer(key));
  return res.status === 200 ? res.body.my_level : res.body.error.code;
}

test('an agent stops with its maker: removed, suspended or deleted, every call is 403 creator_revoked, an agent made by that agent too', async () => {
  const { org, adminKey, a } = shared;
  // removed: an admin's admin agent, the member agent that agent made, and a token minted from the first one's key
  const removed = await newMember(org, 'human', 'admin');
  const made = await agentBy(removed.api_key, org.org_id, { role: 'admin' });
  const sub = await agentBy(made.key, org.org_id, { grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  const token = (await gateway().post('/v1/tokens').send({ api_key: made.key })).body.access_token as string;
  expect(await levelOn(made.key, a.warehouse_id)).toBe('write');
  expect(await levelOn(sub.key, a.warehouse_id)).toBe('read');
  expect((await gateway().get('/v1/warehouses').set(bearer(token))).status).toBe(200);
  expect((await gateway().delete(`/v1/orgs/${org.org_id}/members/${removed.principal_id}`).set(bearer(adminKey))).status).toBe(200);
  for (const credential of [made.key, token, sub.key]) {
    const refused = expectError(await gateway().get('/v1/warehouses').set(bearer(credential)), 403, 'creator_revoked');
    expect(refused.remedy).toEqual(expect.stringContaining('/agents'));
    expectError(await gateway().get(`/v1/warehouses/${a.warehouse_id}`).set(bearer(credential)), 403, 'creator_revoked');
    expectError(await gateway().get('/v1/tables').query({ warehouse: a.warehouse_id }).set(bearer(credential)), 403, 'creator_revoked');
  }
  expectError(await gateway().post('/v1/tokens').send({ api_key: made.key }), 403, 'creator_revoked');
  expectError(await gateway().get('/v1/api-keys').set(bearer(sub.key)), 403, 'creator_revoked');

  // suspended: a member's agent (the deployment's suspension, on identity's own port)
  const suspended = await newMember(org);
  const theirs = await agentBy(suspended.api_key, org.org_id, { grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  expect(await levelOn(theirs.key, a.warehouse_id)).toBe('read');
  expect((await identity().post(`/internal/principals/${suspended.principal_id}/suspend`).set(bearer(stack().bootstrap_secret)).send({})).status).toBe(200);
  expectError(await gateway().get(`/v1/warehouses/${a.warehouse_id}`).set(bearer(theirs.key)), 403, 'creator_revoked');
  expectError(await gateway().get('/v1/warehouses').set(bearer(theirs.key)), 403, 'creator_revoked');

  // deleted: the maker deletes their account
  const leaving = await newMember(org);
  const left = await agentBy(leaving.api_key, org.org_id, { grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  expect(await levelOn(left.key, a.warehouse_id)).toBe('read');
  expect((await gateway().delete('/v1/me').set(bearer(leaving.api_key)).send({ confirm: leaving.email })).status).toBe(200);
  expectError(await gateway().get('/v1/warehouses').set(bearer(left.key)), 403, 'creator_revoked');

  // The organisation's admins still see and revoke them; an agent with no recorded maker stands on its own.
  const listed = await gateway().get(`/v1/orgs/${org.org_id}/agents`).set(bearer(adminKey));
  expect(listed.body.agents.map((x: { agent_id: string }) => x.agent_id)).toEqual(expect.arrayContaining([made.id, sub.id, theirs.id, left.id]));
  expect((await gateway().delete(`/v1/orgs/${org.org_id}/agents/${sub.id}`).set(bearer(adminKey))).status).toBe(200);
  const unmade = await newMember(org, 'agent');
  expect((await gateway().get('/v1/warehouses').set(bearer(unmade.api_key))).status).toBe(200);
}, 90_000);

test('an agent holds no more than its maker holds now: a demoted maker\'s admin agent acts as a member, a revoked read hides the catalog, levels cap at the maker\'s', async () => {
  const { org, adminKey, a, b, projectId } = shared;
  const maker = await newMember(org, 'human', 'admin');
  const admin = await agentBy(maker.api_key, org.org_id, { role: 'admin' });
  const writer = await agentBy(maker.api_key, org.org_id, { grants: [{ warehouse_id: a.warehouse_id, level: 'write' }, { warehouse_id: b.warehouse_id, level: 'write' }] });
  const roleOf = async (key: string) => (await gateway().get('/v1/orgs').set(bearer(key))).body.organizations.find((o: { org_id: string }) => o.org_id === org.org_id).role;
  expect(await roleOf(admin.key)).toBe('admin');
  expect([await levelOn(writer.key, a.warehouse_id), await levelOn(writer.key, b.warehouse_id)]).toEqual(['write', 'write']);

  // demoted: the admin agent is a member with no grants, the write grants read as the maker reads
  expect((await gateway().patch(`/v1/orgs/${org.org_id}/members/${maker.principal_id}`).set(bearer(adminKey)).send({ role: 'member' })).status).toBe(200);
  expect(await roleOf(admin.key)).toBe('member');
  expect((await gateway().get('/v1/warehouses').set(bearer(admin.key))).body.warehouses).toEqual([]);
  expectError(await gateway().get(`/v1/warehouses/${a.warehouse_id}`).set(bearer(admin.key)), 404, 'warehouse_not_found');
  expectError(await gateway().patch(`/v1/orgs/${org.org_id}`).set(bearer(admin.key)).send({ name: 'taken over' }), 403, 'insufficient_role');
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/agents`).set(bearer(admin.key)).send({ name: `x-${uniq()}`, role: 'admin' }), 403, 'insufficient_role');
  expectError(await gateway().post('/v1/warehouses').set(bearer(admin.key)).send({ project_id: projectId, name: `x_${uniq()}` }), 403, 'forbidden');
  expect([await levelOn(writer.key, a.warehouse_id), await levelOn(writer.key, b.warehouse_id)]).toEqual(['read', 'read']);
  expectError(await gateway().patch(`/v1/warehouses/${a.warehouse_id}`).set(bearer(writer.key)).send({ default_format_version: 2 }), 403, 'forbidden');

  // the maker's read revoked on a (level none): the agent's grant there no longer reads; b is untouched
  expect((await gateway().delete(`/v1/warehouses/${a.warehouse_id}/grants/${maker.principal_id}`).set(bearer(adminKey))).status).toBe(200);
  expect(await levelOn(writer.key, a.warehouse_id)).toBe('warehouse_not_found');
  expectError(await gateway().get('/v1/namespaces').query({ warehouse: a.warehouse_id }).set(bearer(writer.key)), 404, 'warehouse_not_found');
  expect((await gateway().get('/v1/warehouses').set(bearer(writer.key))).body.warehouses.map((w: { warehouse_id: string; my_level: string }) => [w.warehouse_id, w.my_level]))
    .toEqual([[b.warehouse_id, 'read']]);

  // promoted again: both agents hold what they were given, at the next request
  expect((await gateway().patch(`/v1/orgs/${org.org_id}/members/${maker.principal_id}`).set(bearer(adminKey)).send({ role: 'admin' })).status).toBe(200);
  expect(await roleOf(admin.key)).toBe('admin');
  expect([await levelOn(writer.key, a.warehouse_id), await levelOn(writer.key, b.warehouse_id)]).toEqual(['write', 'write']);
}, 90_000);

test('cross-tenant: an agent is capped by its maker in its own organisation only; the maker\'s other organisation changes nothing for it', async () => {
  const { org, a } = shared;
  const other = await orgWithTwoCatalogs();
  // The maker is an admin here and a member (reading everything) there.
  const maker = await newMember(org, 'human', 'admin');
  await join(other.org, maker, 'member');
  const agent = await agentBy(maker.api_key, org.org_id, { role: 'admin' });
  const seen = (await gateway().get('/v1/warehouses').set(bearer(agent.key))).body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id);
  expect(seen).toContain(a.warehouse_id);
  expect(seen).not.toContain(other.a.warehouse_id);
  expect(await levelOn(agent.key, other.a.warehouse_id)).toBe('warehouse_not_found');
  expectError(await gateway().get(`/v1/orgs/${other.org.org_id}/agents`).set(bearer(agent.key)), 404, 'org_not_found');
  // Removed from the other organisation, the maker still stands where the agent is; the other organisation's admin cannot touch the agent.
  expect((await gateway().delete(`/v1/orgs/${other.org.org_id}/members/${maker.principal_id}`).set(bearer(other.adminKey))).status).toBe(200);
  expect(await levelOn(agent.key, a.warehouse_id)).toBe('write');
  expectError(await gateway().delete(`/v1/orgs/${org.org_id}/agents/${agent.id}`).set(bearer(other.adminKey)), 404, 'org_not_found');
}, 90_000);

test('a confined token acts only within its grants: no project, catalog, onboarding, table where it reads, invitation, domain claim or storage identity; an admin-role agent may create', async () => {
  const { org, adminKey, a, projectId } = shared;
  const reader = await agentBy(adminKey, org.org_id, { grants: [{ warehouse_id: a.warehouse_id, level: 'read' }] });
  const confined = (res: Parameters<typeof expectError>[0]) => expect(expectError(res, 403, 'forbidden')).toMatchObject({ confined: true, needed: 'admin', role: 'member' });
  confined(await gateway().post('/v1/projects').set(bearer(reader.key)).send({ name: `p-${uniq()}` }));
  confined(await gateway().post('/v1/warehouses').set(bearer(reader.key)).send({ project_id: projectId, name: `c_${uniq()}` }));
  confined(await gateway().post('/v1/onboard').set(bearer(reader.key)).send({}));
  const table = expectError(await gateway().post('/v1/tables').set(bearer(reader.key)).send({
    warehouse_id: a.warehouse_id, namespace: 'conf', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] },
  }), 403, 'forbidden');
  expect(table).toMatchObject({ level: 'read', needed: 'write', can_grant: expect.arrayContaining([expect.objectContaining({ role: 'admin' })]) });
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/invitations`).set(bearer(reader.key)).send({ email: `x-${uniq()}@example.org`, role: 'member' }), 403, 'insufficient_role');
  expectError(await gateway().post(`/v1/orgs/${org.org_id}/domains`).set(bearer(reader.key)).send({ domain: `d-${uniq()}.test` }), 403, 'insufficient_role');
  expectError(await gateway().post(`/v1/warehouses/${a.warehouse_id}/uploaders`).set(bearer(reader.key)).send({ name: `u-${uniq()}` }), 403, 'forbidden');
  expectError(await gateway().put(`/v1/warehouses/${a.warehouse_id}/lifecycle`).set(bearer(reader.key)).send({ rules: [{ prefix: 'x/', expire_days: 1 }] }), 403, 'forbidden');
  expectError(await gateway().post('/v1/sinks').set(bearer(reader.key)).send({ name: `s-${uniq()}`, warehouse: a.warehouse_id, table: 'conf.t' }), 403, 'forbidden');
  expectError(await gateway().post(`/v1/warehouses/${a.warehouse_id}/public`).set(bearer(reader.key)).send({ confirm: a.name }), 403, 'forbidden');
  // A token outside any organisation holds nothing and makes nothing.
  const loose = await newPrincipal('agent');
  expect(expectError(await gateway().post('/v1/projects').set(bearer(loose.api_key)).send({ name: `p-${uniq()}` }), 403, 'forbidden')).toMatchObject({ confined: true, role: null });
  expectError(await gateway().post('/v1/onboard').set(bearer(loose.api_key)).send({ organization_name: 'Agent Org' }), 403, 'forbidden');
  expect((await gateway().get('/v1/projects').set(bearer(loose.api_key))).body.projects).toEqual([]);

  // An admin-role agent makes a project and a catalog; demoted, it holds only its grants (nothing by having made the catalog).
  const ops = await agentBy(adminKey, org.org_id, { role: 'admin' });
  const project = await gateway().post('/v1/projects').set(bearer(ops.key)).send({ name: `ops-${uniq()}` });
  expect(project.status).toBe(201);
  const made = await newWarehouse(ops.key, project.body.project_id, `ops_${uniq()}`);
  expect(await levelOn(ops.key, made.warehouse_id)).toBe('write');
  expectError(await gateway().post(`/v1/warehouses/${made.warehouse_id}/public`).set(bearer(ops.key)).send({ confirm: made.name }), 403, 'person_required');
  expect((await gateway().patch(`/v1/orgs/${org.org_id}/agents/${ops.id}`).set(bearer(adminKey)).send({ role: 'member' })).status).toBe(200);
  expect(await levelOn(ops.key, made.warehouse_id)).toBe('warehouse_not_found');
  confined(await gateway().post('/v1/projects').set(bearer(ops.key)).send({ name: `p-${uniq()}` }));
  // Deleted, the catalog's tombstone is for those who could see it: not for a confined token, which restores nothing either.
  expect((await gateway().delete(`/v1/warehouses/${made.warehouse_id}`).set(bearer(adminKey)).send({ confirm: made.name })).status).toBe(202);
  expectError(await gateway().get(`/v1/warehouses/${made.warehouse_id}`).set(bearer(adminKey)), 404, 'warehouse_deleting');
  expectError(await gateway().get(`/v1/warehouses/${made.warehouse_id}`).set(bearer(ops.key)), 404, 'warehouse_not_found');
  expectError(await gateway().post(`/v1/warehouses/${made.warehouse_id}/restore`).set(bearer(ops.key)), 404, 'warehouse_not_found');
}, 120_000);
