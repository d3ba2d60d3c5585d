import { bearer, db, expectError, gateway, newPrincipal } from './helpers';

// Spec: Organisations and agents — organisations, settings and members.
// (Invitations come later in this issue; a second member is added here the
// way an accepted invitation will add one.)

let n = 0;
const uniq = () => `${Date.now().toString(36)}${process.pid.toString(36)}${++n}`;

async function adminWithOrg() {
  const signup = await gateway().post('/v1/signup').send({ email: `org-${uniq()}@example.com`, workspace: `ws-${uniq()}`.slice(0, 40), accept_terms: true });
  expect(signup.status).toBe(201);
  return { key: signup.body.api_key as string, principalId: signup.body.principal_id as string, orgId: signup.body.organization.org_id as string };
}

async function addMember(orgId: string, principalId: string, role: 'admin' | 'member'): Promise<void> {
  const pool = db();
  try {
    await pool.query(`INSERT INTO memberships (org_id, principal_id, role, joined_via) VALUES ($1, $2, $3, 'invitation')`, [orgId, principalId, role]);
  } finally {
    await pool.end();
  }
}

test('GET /v1/orgs lists the caller\'s organisations with their role; a stranger sees none of another\'s', async () => {
  const a = await adminWithOrg();
  const res = await gateway().get('/v1/orgs').set(bearer(a.key));
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({ count: 1, organizations: [{ org_id: a.orgId, role: 'admin', joined_via: 'creator', handle: expect.any(String) }] });
  const stranger = await newPrincipal();
  expect((await gateway().get('/v1/orgs').set(bearer(stranger.api_key))).body).toEqual({ organizations: [], count: 0 });
  expectError(await gateway().get(`/v1/orgs/${a.orgId}/members`).set(bearer(stranger.api_key)), 404, 'org_not_found');
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}`).set(bearer(stranger.api_key)).send({ name: 'mine now' }), 404, 'org_not_found');
});

test('PATCH /v1/orgs/{org_id}: an admin renames; a member gets insufficient_role; domain join needs a claimed domain', async () => {
  const a = await adminWithOrg();
  const member = await newPrincipal();
  await addMember(a.orgId, member.principal_id, 'member');
  const renamed = await gateway().patch(`/v1/orgs/${a.orgId}`).set(bearer(a.key)).send({ name: 'Renamed Org' });
  expect(renamed.status).toBe(200);
  expect(renamed.body).toMatchObject({ org_id: a.orgId, name: 'Renamed Org', updated: ['name'], domain_join: false });
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}`).set(bearer(member.api_key)).send({ name: 'Mine' }), 403, 'insufficient_role');
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}`).set(bearer(a.key)).send({ domain_join: true }), 400, 'no_verified_domain');
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}`).set(bearer(a.key)).send({ handle: 'x' }), 400, 'invalid_field');
  const audit = await gateway().get('/v1/audit').query({ action: 'org.update', org_id: a.orgId }).set(bearer(a.key));
  expect(audit.body.events[0]).toMatchObject({ action: 'org.update', data: { changes: { name: 'Renamed Org' } } });
});

test('members: listed, roles changed by an admin (owner is admin), removed; a person leaves; the last human admin stays', async () => {
  const a = await adminWithOrg();
  const b = await newPrincipal();
  const agent = await newPrincipal('agent');
  await addMember(a.orgId, b.principal_id, 'member');
  await addMember(a.orgId, agent.principal_id, 'admin');
  const list = await gateway().get(`/v1/orgs/${a.orgId}/members`).set(bearer(b.api_key));
  expect(list.body.count).toBe(3);
  expect(list.body.members.map((m: { principal_id: string; role: string }) => [m.principal_id, m.role])).toEqual([[a.principalId, 'admin'], [b.principal_id, 'member'], [agent.principal_id, 'admin']]);

  // A member cannot change roles; an admin token does not count as the last admin.
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(b.api_key)).send({ role: 'member' }), 403, 'insufficient_role');
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(a.key)).send({ role: 'member' }), 409, 'last_admin');
  expectError(await gateway().delete(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(a.key)), 409, 'last_admin');
  expectError(await gateway().patch(`/v1/orgs/${a.orgId}/members/p_nobody`).set(bearer(a.key)).send({ role: 'admin' }), 404, 'member_not_found');

  const promoted = await gateway().patch(`/v1/orgs/${a.orgId}/members/${b.principal_id}`).set(bearer(a.key)).send({ role: 'owner' });
  expect(promoted.body).toMatchObject({ member_id: b.principal_id, role: 'admin', previous_role: 'member' });
  // Now A may step down, and B removes the agent; B may not leave as the last human admin, A (a member now) may.
  expect((await gateway().patch(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(a.key)).send({ role: 'member' })).body.role).toBe('member');
  expect((await gateway().delete(`/v1/orgs/${a.orgId}/members/${agent.principal_id}`).set(bearer(b.api_key))).body).toMatchObject({ removed: true, left: false });
  expectError(await gateway().delete(`/v1/orgs/${a.orgId}/members/${b.principal_id}`).set(bearer(b.api_key)), 409, 'last_admin');
  const left = await gateway().delete(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(a.key));
  expect(left.body).toMatchObject({ member_id: a.principalId, removed: true, left: true });
  expect((await gateway().get('/v1/orgs').set(bearer(a.key))).body.count).toBe(0);
});

test('two admins demoting each other at once leave one admin', async () => {
  const a = await adminWithOrg();
  const b = await newPrincipal();
  await addMember(a.orgId, b.principal_id, 'admin');
  const [x, y] = await Promise.all([
    gateway().patch(`/v1/orgs/${a.orgId}/members/${b.principal_id}`).set(bearer(a.key)).send({ role: 'member' }),
    gateway().patch(`/v1/orgs/${a.orgId}/members/${a.principalId}`).set(bearer(b.api_key)).send({ role: 'member' }),
  ]);
  // The loser is refused as the last admin, or, when the other demotion landed first, as no admin at all.
  const [won, lost] = x.status === 200 ? [x, y] : [y, x];
  expect(won.status).toBe(200);
  expect([[403, 'insufficient_role'], [409, 'last_admin']]).toContainEqual([lost.status, lost.body.error.code]);
  const members = (await gateway().get(`/v1/orgs/${a.orgId}/members`).set(bearer(a.key))).body.members as Array<{ role: string }>;
  expect(members.filter((m) => m.role === 'admin')).toHaveLength(1);
});
