import { randomBytes } from 'node:crypto';
import { hashSecret } from '@floe/auth';
import { bearer, db, expectError, gateway, identity, sql, stack } from './helpers';
import { newOrgWithAdmin } from './control-plane-helpers';
import { codeIn, mailsTo, newestMailTo } from '../support/mail';

// Spec: invitations — an admin invites an address (the token shown once and
// mailed), the invited person accepts with that address.

let n = 0;
const uniq = () => `${Date.now().toString(36)}${process.pid.toString(36)}${++n}`;

/** A person who proved their address (sign-up by e-mail code): admin of a new organisation. */
async function verifiedAdmin() {
  const email = `inv-admin-${uniq()}@example.com`;
  expect((await gateway().post('/v1/signup/start').send({ email, workspace: `ws-${uniq()}`.slice(0, 40) })).status).toBe(202);
  const v = await gateway().post('/v1/signup/verify').send({ email, code: codeIn(await newestMailTo(email)), accept_terms: true });
  expect(v.status).toBe(201);
  return { email, key: v.body.api_key as string, orgId: v.body.organization.org_id as string };
}

async function personWith(email: string, kind: 'human' | 'agent' = 'human') {
  const res = await identity().post('/internal/principals').set(bearer(stack().bootstrap_secret)).send({ kind, email: kind === 'human' ? email : undefined, label: 'e2e' });
  expect(res.status).toBe(201);
  return res.body as { principal_id: string; api_key: string };
}

test('an admin invites; the mail carries the token; the invited address accepts and joins with the role', async () => {
  const admin = await verifiedAdmin();
  const invited = `colleague-${uniq()}@example.com`;
  const res = await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key)).send({ email: invited, role: 'member' });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ invitation_id: expect.stringMatching(/^inv_/), org_id: admin.orgId, email: invited, role: 'member', status: 'pending', token: expect.stringMatching(/^inv_/), delivery: 'email' });
  const mail = await newestMailTo(invited);
  expect(mail.text).toContain(res.body.token);
  expect(mail.subject).toContain('invited you');

  const list = await gateway().get(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key));
  expect(list.body.invitations.map((i: { email: string; status: string }) => [i.email, i.status])).toEqual([[invited, 'pending']]);
  expect(JSON.stringify(list.body)).not.toContain(res.body.token);

  const stranger = await personWith(`stranger-${uniq()}@example.com`);
  expectError(await gateway().post('/v1/orgs/invitations/accept').set(bearer(stranger.api_key)).send({ token: res.body.token }), 403, 'invitation_for_someone_else');
  expectError(await gateway().post('/v1/orgs/invitations/accept').set(bearer(stranger.api_key)).send({ token: 'inv_nonsense' }), 404, 'invitation_not_found');

  const colleague = await personWith(invited);
  const accepted = await gateway().post('/v1/orgs/invitations/accept').set(bearer(colleague.api_key)).send({ token: res.body.token });
  expect(accepted.body).toMatchObject({ org_id: admin.orgId, role: 'member', joined: true });
  expect((await gateway().post('/v1/orgs/invitations/accept').set(bearer(colleague.api_key)).send({ token: res.body.token })).body.joined).toBe(false);
  const orgs = await gateway().get('/v1/orgs').set(bearer(colleague.api_key));
  expect(orgs.body.organizations).toEqual([expect.objectContaining({ org_id: admin.orgId, role: 'member', joined_via: 'invitation' })]);
  // As a member the colleague reads the catalog implicitly and cannot invite.
  expect((await gateway().get('/v1/warehouses').set(bearer(colleague.api_key))).body.warehouses[0]).toMatchObject({ name: 'lake', my_level: 'read' });
  expectError(await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(colleague.api_key)).send({ email: `x-${uniq()}@example.com` }), 403, 'insufficient_role');
  const audit = await gateway().get('/v1/audit').query({ action: 'org.*', org_id: admin.orgId }).set(bearer(admin.key));
  expect(audit.body.events.map((e: { action: string }) => e.action)).toEqual(expect.arrayContaining(['org.invite', 'org.invitation_accept', 'org.member_join']));
});

test('inviter_unverified, inviter_unknown and an expired invitation', async () => {
  const unverified = await gateway().post('/v1/signup').send({ email: `inv-u-${uniq()}@example.com`, workspace: 'u', accept_terms: true });
  expectError(await gateway().post(`/v1/orgs/${unverified.body.organization.org_id}/invitations`).set(bearer(unverified.body.api_key)).send({ email: `a-${uniq()}@example.com` }), 403, 'inviter_unverified');

  const admin = await verifiedAdmin();
  const agent = await personWith('', 'agent');
  const pool = db();
  try {
    await pool.query(`INSERT INTO memberships (org_id, principal_id, role, joined_via) VALUES ($1, $2, 'admin', 'agent')`, [admin.orgId, agent.principal_id]);
    expectError(await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(agent.api_key)).send({ email: `b-${uniq()}@example.com` }), 403, 'inviter_unknown');

    const invited = `late-${uniq()}@example.com`;
    const inv = await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key)).send({ email: invited, role: 'owner' });
    expect(inv.body.role).toBe('admin');
    await pool.query(`UPDATE invitations SET expires_at = now() - interval '1 second' WHERE id = $1`, [inv.body.invitation_id]);
    const late = await personWith(invited);
    expectError(await gateway().post('/v1/orgs/invitations/accept').set(bearer(late.api_key)).send({ token: inv.body.token }), 410, 'invitation_expired');
  } finally {
    await pool.end();
  }
});

test('an invitation applies by itself when the address signs up: by e-mail code, and by password', async () => {
  const admin = await verifiedAdmin();
  const byCode = `joiner-code-${uniq()}@example.com`;
  const byPassword = `joiner-pw-${uniq()}@example.com`;
  for (const email of [byCode, byPassword]) {
    expect((await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key)).send({ email, role: 'member' })).status).toBe(201);
  }
  const orgName = (await gateway().get('/v1/orgs').set(bearer(admin.key))).body.organizations[0].name;

  const start = await gateway().post('/v1/signup/start').send({ email: byCode, workspace: 'mine', organization_name: 'Would Be Mine', handle: `mine-${uniq()}` });
  expect(start.status).toBe(202);
  expect(start.body.will_join).toEqual({ org_id: admin.orgId, name: orgName, handle: expect.any(String) });
  expect(start.body.organization).toBeUndefined();
  const codeMail = (await newestMailTo(byCode, 2));
  const verified = await gateway().post('/v1/signup/verify').send({ email: byCode, code: codeIn(codeMail), accept_terms: true });
  expect(verified.status).toBe(201);
  expect(verified.body.organization).toEqual({ org_id: admin.orgId, role: 'member', joined_via: 'invitation' });
  const lake = (await gateway().get('/v1/warehouses').set(bearer(admin.key))).body.warehouses[0];
  expect(verified.body.warehouse_id).toBe(lake.warehouse_id);
  expect((await gateway().get('/v1/orgs').set(bearer(verified.body.api_key))).body.count).toBe(1);

  const pw = await gateway().post('/v1/auth/signup').send({ email: byPassword, full_name: 'Joiner', organization_name: 'Ignored Org', handle: `ignored-${uniq()}` });
  expect(pw.status).toBe(202);
  expect(pw.body).toMatchObject({ will_join: { org_id: admin.orgId, role: 'member', via: 'invitation' }, note_join: expect.any(String) });
  expect(pw.body.organization).toBeUndefined();
  const welcome = /\/app\/welcome\?token=([A-Za-z0-9_%-]+)/.exec((await newestMailTo(byPassword, 2)).text)![1];
  const set = await gateway().post('/v1/auth/password/set').send({ token: decodeURIComponent(welcome), password: 'a joiner passphrase 77' });
  expect(set.status).toBe(200);
  expect(set.body.organization).toMatchObject({ org_id: admin.orgId, role: 'member', joined_via: 'invitation' });
  expect(set.body.warehouse).toMatchObject({ warehouse_id: lake.warehouse_id, created: false });

  const list = await gateway().get(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key));
  expect(list.body.invitations.map((i: { status: string }) => i.status)).toEqual(['accepted', 'accepted']);
  const members = await gateway().get(`/v1/orgs/${admin.orgId}/members`).set(bearer(admin.key));
  expect(members.body.count).toBe(3);
});

test('20 accepts at once, of two invitations to one address: one join (one membership, one audit), every answer 200', async () => {
  // An admin with a proven address, written as sign-up writes it.
  const o = await newOrgWithAdmin();
  await sql(`UPDATE principals SET email_verified_at = now() WHERE id = $1`, [o.admin.principal_id]);
  const admin = { key: o.admin.api_key, orgId: o.org.org_id };
  const invited = `twice-${uniq()}@example.com`;
  const r = await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key)).send({ email: invited, role: 'member' });
  expect(r.status).toBe(201);
  // A second pending invitation to the address, as an older version could leave one (today a new one replaces the pending one).
  const second = `inv_${randomBytes(24).toString('base64url')}`;
  await sql(`INSERT INTO invitations (id, org_id, email, role, token_hash, invited_by, expires_at) VALUES ($1, $2, $3, 'member', $4, $5, now() + interval '1 day')`,
    [`inv_${randomBytes(12).toString('hex')}`, admin.orgId, invited, hashSecret(second), o.admin.principal_id]);
  const tokens = [r.body.token as string, second];
  const person = await personWith(invited);
  const stranger = await personWith(`stranger-${uniq()}@example.com`);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => gateway().post('/v1/orgs/invitations/accept').set(bearer(person.api_key)).send({ token: tokens[i % 2] })));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(answers.filter((a) => a.body.joined === true)).toHaveLength(1);
  expect(answers.every((a) => a.body.org_id === admin.orgId && a.body.role === 'member')).toBe(true);
  const pool = db();
  try {
    const { rows } = await pool.query(`SELECT count(*)::int AS n FROM memberships WHERE org_id = $1 AND principal_id = $2`, [admin.orgId, person.principal_id]);
    expect(rows[0].n).toBe(1);
    const joins = await pool.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'org.member_join' AND org_id = $1 AND target_id = $2`, [admin.orgId, person.principal_id]);
    expect(joins.rows[0].n).toBe(1);
  } finally {
    await pool.end();
  }
  // The tokens are the invited address's only: another person is still refused.
  expectError(await gateway().post('/v1/orgs/invitations/accept').set(bearer(stranger.api_key)).send({ token: tokens[0] }), 404, 'invitation_not_found');
}, 60_000);

test('20 invites of one address at once: one invitation, one mail, one audit, the rest 429; a later invite replaces it (the old token expired)', async () => {
  const o = await newOrgWithAdmin();
  await sql(`UPDATE principals SET email_verified_at = now() WHERE id = $1`, [o.admin.principal_id]);
  const invited = `many-${uniq()}@example.com`;
  const invite = (role: string, email = invited) => gateway().post(`/v1/orgs/${o.org.org_id}/invitations`).set(bearer(o.admin.api_key)).send({ email, role });
  const answers = await Promise.all(Array.from({ length: 20 }, () => invite('member')));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
  for (const a of answers.filter((x) => x.status !== 201)) {
    const e = expectError(a, 429, 'rate_limited');
    expect(e.retry_after_seconds).toEqual(expect.any(Number));
    expect(Number(a.headers['retry-after'])).toBeGreaterThan(0);
  }
  const first = answers.find((a) => a.status === 201)!.body;
  await newestMailTo(invited);
  expect(await mailsTo(invited)).toHaveLength(1);
  const audited = await sql(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'org.invite' AND org_id = $1`, [o.org.org_id]);
  expect(audited[0].n).toBe(1);

  // A minute later (aged here), inviting the address again (any case) replaces the pending invitation: a new token and role, the old one expired.
  await sql(`UPDATE invitations SET created_at = now() - interval '61 seconds' WHERE id = $1`, [first.invitation_id]);
  const again = await invite('admin', invited.toUpperCase());
  expect(again.status).toBe(201);
  await newestMailTo(invited, 2);
  const list = await gateway().get(`/v1/orgs/${o.org.org_id}/invitations`).set(bearer(o.admin.api_key));
  expect(list.body.invitations.map((i: { status: string; role: string }) => [i.status, i.role])).toEqual([['pending', 'admin'], ['expired', 'member']]);
  const person = await personWith(invited);
  expectError(await gateway().post('/v1/orgs/invitations/accept').set(bearer(person.api_key)).send({ token: first.token }), 410, 'invitation_expired');
  const joined = await gateway().post('/v1/orgs/invitations/accept').set(bearer(person.api_key)).send({ token: again.body.token });
  expect(joined.body).toMatchObject({ org_id: o.org.org_id, role: 'admin', joined: true });
}, 60_000);

test('pending invitations hold the plan\'s limit exactly under 20 at once; replacing one does not count', async () => {
  const o = await newOrgWithAdmin();
  await sql(`UPDATE principals SET email_verified_at = now() WHERE id = $1`, [o.admin.principal_id]);
  await sql(`INSERT INTO org_limits (org_id, plan, overrides) VALUES ($1, 'free', '{"pending_invitations": 3}')`, [o.org.org_id]);
  const invite = (email: string) => gateway().post(`/v1/orgs/${o.org.org_id}/invitations`).set(bearer(o.admin.api_key)).send({ email, role: 'member' });
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => invite(`limit-${i}-${uniq()}@example.com`)));
  expect(answers.filter((a) => a.status === 201)).toHaveLength(3);
  for (const a of answers.filter((x) => x.status !== 201)) {
    expect(expectError(a, 409, 'limit_exceeded')).toMatchObject({ limit: 'pending_invitations', limit_value: 3, current: 3 });
  }
  const usage = await gateway().get('/v1/usage').set(bearer(o.admin.api_key));
  expect(usage.body.limits.pending_invitations).toMatchObject({ value: 3, current: 3, headroom: 0 });
  // Inviting one of the three again (a minute later) replaces it, within the limit.
  const kept = answers.find((a) => a.status === 201)!.body;
  await sql(`UPDATE invitations SET created_at = now() - interval '61 seconds' WHERE id = $1`, [kept.invitation_id]);
  expect((await invite(kept.email)).status).toBe(201);
  expectError(await invite(`limit-late-${uniq()}@example.com`), 409, 'limit_exceeded');
}, 60_000);

test('the one-call sign-up and POST /v1/onboard apply an invitation as verify does: the inviting organisation, nothing made, its lake\'s recipe', async () => {
  const admin = await verifiedAdmin();
  const lake = (await gateway().get('/v1/warehouses').set(bearer(admin.key))).body.warehouses[0];
  const oneCall = `joiner-one-${uniq()}@example.com`;
  const onboarder = `joiner-onboard-${uniq()}@example.com`;
  for (const [email, role] of [[oneCall, 'admin'], [onboarder, 'member']]) {
    expect((await gateway().post(`/v1/orgs/${admin.orgId}/invitations`).set(bearer(admin.key)).send({ email, role })).status).toBe(201);
  }

  const signed = await gateway().post('/v1/signup').send({ email: oneCall, workspace: 'would-be-mine', accept_terms: true });
  expect(signed.status).toBe(201);
  expect(signed.body).toMatchObject({ organization: { org_id: admin.orgId, role: 'admin', joined_via: 'invitation' }, warehouse_id: lake.warehouse_id });
  expect(signed.body.connection).toMatchObject({ state: 'ready', warehouse_id: lake.warehouse_id, level: 'write' });
  expect((await gateway().get('/v1/orgs').set(bearer(signed.body.api_key))).body.count).toBe(1);

  // A person made without an organisation (a key only) onboards into the inviting one instead of a new one.
  const person = await personWith(onboarder);
  const onboarded = await gateway().post('/v1/onboard').set(bearer(person.api_key)).send({ accept_terms: true, organization_name: 'Would Be Mine' });
  expect(onboarded.status).toBe(200);
  expect(onboarded.body).toMatchObject({
    organization: { org_id: admin.orgId, role: 'member', joined_via: 'invitation' }, warehouse_id: lake.warehouse_id,
    created: { organization: false, project: false, warehouse: false },
  });
  expect(onboarded.body.connection).toMatchObject({ state: 'ready', level: 'read' });
  const spent = await sql<{ email: string; accepted_by: string | null }>(`SELECT email, accepted_by FROM invitations WHERE org_id = $1 AND email = ANY($2) ORDER BY email`, [admin.orgId, [oneCall, onboarder]]);
  expect(spent).toEqual([{ email: onboarder, accepted_by: person.principal_id }, { email: oneCall, accepted_by: signed.body.principal_id }].sort((a, b) => (a.email < b.email ? -1 : 1)));
});
