import { bearer, db, expectError, gateway, sql } from './helpers';
import { newOrgWithAdmin } from './control-plane-helpers';
import { codeIn, newestMailTo } from '../support/mail';

// Spec: POST/DELETE /v1/orgs/{org_id}/domains, domain join at sign-up.

let n = 0;
const uniq = () => `${Date.now().toString(36)}${process.pid.toString(36)}${++n}`;

/** Sign-up by e-mail code (a verified address); the account and the organisation it landed in. */
async function signUpVerified(email: string) {
  const start = await gateway().post('/v1/signup/start').send({ email, workspace: `ws-${uniq()}`.slice(0, 40) });
  expect(start.status).toBe(202);
  const v = await gateway().post('/v1/signup/verify').send({ email, code: codeIn(await newestMailTo(email)), accept_terms: true });
  expect(v.status).toBe(201);
  return { key: v.body.api_key as string, orgId: v.body.organization.org_id as string, principalId: v.body.principal_id as string, start: start.body, verify: v.body };
}

test('an admin claims the domain of their verified address; domain join lets a new person on it join as a member', async () => {
  const domain = `acme-${uniq()}.test`;
  const admin = await signUpVerified(`boss@${domain}`);
  expectError(await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain: 'gmail.com' }), 400, 'public_mail_domain');
  expectError(await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain: `other-${uniq()}.test` }), 409, 'domain_not_verified');
  expectError(await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain: 'not a domain' }), 400, 'invalid_value');
  expectError(await gateway().patch(`/v1/orgs/${admin.orgId}`).set(bearer(admin.key)).send({ domain_join: true }), 400, 'no_verified_domain');

  const claim = await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain: domain.toUpperCase() });
  expect(claim.status).toBe(201);
  expect(claim.body).toMatchObject({ org_id: admin.orgId, domain, verified: true, proof: 'verified_address' });
  expect((await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain })).status).toBe(200);
  const audit = await gateway().get('/v1/audit').query({ action: 'org.domain_claim', org_id: admin.orgId }).set(bearer(admin.key));
  expect(audit.body.events).toHaveLength(1);

  // Another organisation whose admin is on the same domain cannot claim it.
  const rival = await signUpVerified(`rival@${domain}`);
  expect(rival.verify.organization.joined_via).toBe('creator');
  expectError(await gateway().post(`/v1/orgs/${rival.orgId}/domains`).set(bearer(rival.key)).send({ domain }), 409, 'domain_claimed');

  expect((await gateway().patch(`/v1/orgs/${admin.orgId}`).set(bearer(admin.key)).send({ domain_join: true })).body.domain_join).toBe(true);
  const joiner = await signUpVerified(`new@${domain}`);
  expect(joiner.start.will_join).toEqual({ org_id: admin.orgId, name: expect.any(String), handle: expect.any(String) });
  expect(joiner.verify.organization).toEqual({ org_id: admin.orgId, role: 'member', joined_via: 'domain' });
  expectError(await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(joiner.key)).send({ domain }), 403, 'insufficient_role');
  // Any member reads the claimed domains and whether domain join is on with the policy.
  const read = await gateway().get(`/v1/orgs/${admin.orgId}/policy`).set(bearer(joiner.key));
  expect(read.body).toMatchObject({ role: 'member', domain_join: true, domains: [{ domain, claimed_by: admin.principalId, claimed_at: claim.body.claimed_at }] });

  // Removing the last domain switches domain join off; members who joined stay.
  const removed = await gateway().delete(`/v1/orgs/${admin.orgId}/domains/${domain}`).set(bearer(admin.key));
  expect(removed.body).toMatchObject({ removed: true, domain_join: false });
  expect((await gateway().get(`/v1/orgs/${admin.orgId}/policy`).set(bearer(admin.key))).body).toMatchObject({ domain_join: false, domains: [] });
  expectError(await gateway().delete(`/v1/orgs/${admin.orgId}/domains/${domain}`).set(bearer(admin.key)), 404, 'domain_not_found');
  const members = await gateway().get(`/v1/orgs/${admin.orgId}/members`).set(bearer(admin.key));
  expect(members.body.members.map((m: { principal_id: string }) => m.principal_id)).toContain(joiner.principalId);
});

test('too_many_claims', async () => {
  const domain = `many-${uniq()}.test`;
  const admin = await signUpVerified(`boss@${domain}`);
  const pool = db();
  try {
    for (let i = 0; i < 10; i++) await pool.query(`INSERT INTO org_domains (domain, org_id, claimed_by) VALUES ($1, $2, $3)`, [`d${i}-${uniq()}.test`, admin.orgId, admin.principalId]);
  } finally {
    await pool.end();
  }
  expect(expectError(await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain }), 400, 'too_many_claims').limit_value).toBe(10);
});

test('20 claims of one domain at once: across organisations one owner (the rest 409 domain_claimed); within one organisation one claim (the rest 200, created false), one audit', async () => {
  const domain = `race-${uniq()}.test`;
  // Twenty organisations whose admins have verified addresses on the domain (written as sign-up writes them).
  const orgs = await Promise.all(Array.from({ length: 20 }, async (_, i) => {
    const o = await newOrgWithAdmin();
    await sql(`UPDATE principals SET email = $1, email_verified_at = now() WHERE id = $2`, [`admin${i}@${domain}`, o.admin.principal_id]);
    return o;
  }));
  const claim = (o: { org: { org_id: string }; admin: { api_key: string } }, d = domain) => gateway().post(`/v1/orgs/${o.org.org_id}/domains`).set(bearer(o.admin.api_key)).send({ domain: d });
  const across = await Promise.all(orgs.map((o) => claim(o)));
  expect(across.filter((r) => r.status === 201)).toHaveLength(1);
  for (const r of across.filter((x) => x.status !== 201)) expectError(r, 409, 'domain_claimed');
  const owner = orgs[across.findIndex((r) => r.status === 201)];
  expect(await sql(`SELECT org_id FROM org_domains WHERE domain = $1`, [domain])).toEqual([{ org_id: owner.org.org_id }]);

  // One organisation claiming a domain of its own 20 times at once.
  const own = `own-${uniq()}.test`;
  await sql(`UPDATE principals SET email = $1 WHERE id = $2`, [`boss@${own}`, owner.admin.principal_id]);
  const within = await Promise.all(Array.from({ length: 20 }, () => claim(owner, own)));
  expect(within.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201]);
  expect(within.every((r) => r.body.domain === own && r.body.org_id === owner.org.org_id)).toBe(true);
  expect(await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action IN ('org.domain_claim') AND target_id IN ($1, $2)`, [domain, own])).toEqual([{ n: 2 }]);
}, 60_000);

test('a claim, a join by domain and a removal commit with their audit events (the act\'s row and its event written by one transaction)', async () => {
  const domain = `atomic-${uniq()}.test`;
  const admin = await signUpVerified(`boss@${domain}`);
  // xmin: the id of the transaction that wrote a row version.
  const eventOf = async (action: string, targetId: string) => {
    const rows = await sql(`SELECT xmin::text AS tx, actor_id, actor_kind, org_id, target_type, target_id, request_id, data FROM audit_events WHERE action = $1 AND org_id = $2 AND target_id = $3`, [action, admin.orgId, targetId]);
    expect(rows).toHaveLength(1);
    return rows[0];
  };
  // Sign-up made the organisation: its creator's membership and `org.create` together.
  const [creator] = await sql(`SELECT xmin::text AS tx FROM memberships WHERE org_id = $1 AND principal_id = $2`, [admin.orgId, admin.principalId]);
  expect(await eventOf('org.create', admin.orgId)).toMatchObject({ tx: creator.tx, actor_id: admin.principalId, actor_kind: 'human', target_type: 'org', data: { name: expect.any(String), handle: expect.any(String) } });

  const claim = await gateway().post(`/v1/orgs/${admin.orgId}/domains`).set(bearer(admin.key)).send({ domain });
  expect(claim.status).toBe(201);
  const [claimed] = await sql(`SELECT xmin::text AS tx FROM org_domains WHERE domain = $1`, [domain]);
  expect(await eventOf('org.domain_claim', domain)).toEqual({
    tx: claimed.tx, actor_id: admin.principalId, actor_kind: 'human', org_id: admin.orgId, target_type: 'domain', target_id: domain,
    request_id: claim.headers['x-request-id'], data: { proof: 'verified_address' },
  });

  expect((await gateway().patch(`/v1/orgs/${admin.orgId}`).set(bearer(admin.key)).send({ domain_join: true })).status).toBe(200);
  const joiner = await signUpVerified(`new@${domain}`);
  expect(joiner.verify.organization).toMatchObject({ org_id: admin.orgId, joined_via: 'domain' });
  const [joined] = await sql(`SELECT xmin::text AS tx FROM memberships WHERE org_id = $1 AND principal_id = $2`, [admin.orgId, joiner.principalId]);
  expect(await eventOf('org.member_join', joiner.principalId)).toMatchObject({ tx: joined.tx, actor_id: joiner.principalId, target_type: 'principal', data: { role: 'member', via: 'domain' } });

  // The last domain's removal switches domain join off in the same transaction as its event.
  const removed = await gateway().delete(`/v1/orgs/${admin.orgId}/domains/${domain}`).set(bearer(admin.key));
  expect(removed.status).toBe(200);
  const [org] = await sql(`SELECT xmin::text AS tx, domain_join FROM organizations WHERE id = $1`, [admin.orgId]);
  expect(org.domain_join).toBe(false);
  expect(await eventOf('org.update', domain)).toEqual({
    tx: org.tx, actor_id: admin.principalId, actor_kind: 'human', org_id: admin.orgId, target_type: 'domain', target_id: domain,
    request_id: removed.headers['x-request-id'], data: { changes: { domain_removed: domain, domain_join: false } },
  });
}, 60_000);
