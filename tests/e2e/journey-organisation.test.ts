// Issue 17's journey, with real parts only: a person signs up, invites a
// colleague (the mail read from the development mail server), the colleague
// signs up with the invited address and lands as a member; the admin makes an
// agent confined to one catalog at read; the agent's key sees that catalog
// and nothing else, its catalog credential is the read-only one and the
// catalog (iceberg-js) refuses its writes; the admin revokes it and its next
// call is 401.
import { icebergClient } from './append-helpers';
import { token } from './catalog-helpers';
import { uniq } from './control-plane-helpers';
import { bearer, expectError, gateway } from './helpers';
import { codeIn, mailsTo, newestMailTo } from '../support/mail';

async function signUpByCode(email: string, extra: Record<string, unknown> = {}) {
  const start = await gateway().post('/v1/signup/start').send({ email, ...extra });
  expect(start.status).toBe(202);
  const verify = await gateway().post('/v1/signup/verify').send({ email, code: codeIn(await newestMailTo(email)), accept_terms: true });
  expect(verify.status).toBe(201);
  return { start: start.body, verify: verify.body };
}

test('sign up, invite a colleague, make a confined agent, use it, revoke it', async () => {
  // A person signs up and makes a second catalog beside `lake`.
  const adminEmail = `founder-${uniq()}@example.com`;
  const admin = await signUpByCode(adminEmail, { workspace: `journey-${uniq()}` });
  const key = admin.verify.api_key as string;
  const orgId = admin.verify.organization.org_id as string;
  const projects = await gateway().get('/v1/projects').set(bearer(key));
  const other = await gateway().post('/v1/warehouses').set(bearer(key)).send({ project_id: projects.body.projects[0].project_id, name: `raw_${uniq()}` });
  expect(other.status).toBe(201);

  // The colleague is invited by mail and signs up with that address: a member, nothing of their own.
  const colleagueEmail = `colleague-${uniq()}@example.com`;
  const invite = await gateway().post(`/v1/orgs/${orgId}/invitations`).set(bearer(key)).send({ email: colleagueEmail, role: 'member' });
  expect(invite.status).toBe(201);
  const [mail] = await mailsTo(colleagueEmail);
  expect(mail.text).toContain(invite.body.token);
  const colleague = await signUpByCode(colleagueEmail);
  expect(colleague.start.will_join).toMatchObject({ org_id: orgId });
  const theirOrgs = await gateway().get('/v1/orgs').set(bearer(colleague.verify.api_key));
  expect(theirOrgs.body.organizations).toEqual([expect.objectContaining({ org_id: orgId, role: 'member', joined_via: 'invitation' })]);
  const members = await gateway().get(`/v1/orgs/${orgId}/members`).set(bearer(key));
  expect(members.body.members.map((m: { email: string; role: string }) => [m.email, m.role])).toEqual([[adminEmail, 'admin'], [colleagueEmail, 'member']]);

  // The admin makes an agent confined to `lake` at read.
  const agent = await gateway().post(`/v1/orgs/${orgId}/agents`).set(bearer(key)).send({ name: 'nightly-report', grants: [{ warehouse_id: 'lake', level: 'read' }] });
  expect(agent.status).toBe(201);
  const agentKey = agent.body.api_key as string;

  // Its key sees `lake` only, at read.
  const seen = await gateway().get('/v1/warehouses').set(bearer(agentKey));
  expect(seen.body.warehouses.map((w: { name: string; my_level: string }) => [w.name, w.my_level])).toEqual([['lake', 'read']]);
  expectError(await gateway().get(`/v1/warehouses/${other.body.warehouse_id}`).set(bearer(agentKey)), 404, 'warehouse_not_found');
  expectError(await gateway().get('/v1/connection').query({ warehouse: other.body.name }).set(bearer(agentKey)), 404, 'warehouse_not_found');
  expectError(await gateway().post('/v1/tables').set(bearer(agentKey)).send({ warehouse_id: 'lake', namespace: 'x', name: 'y', schema: { type: 'struct', fields: [] } }), 403, 'forbidden');

  // Its catalog credential is the read-only identity: the catalog lists, and refuses a write.
  const conn = await gateway().get('/v1/connection').query({ warehouse: 'lake', engine: 'pyiceberg' }).set(bearer(agentKey));
  expect(conn.status).toBe(200);
  const cred = conn.body.catalog_credential as { client_id: string; client_secret: string };
  expect(cred.client_id).toMatch(/^t-[0-9a-f-]{36}-ro$/);
  const engine = icebergClient(seen.body.warehouses[0].warehouse_id, await token(cred.client_id, cred.client_secret));
  expect((await engine.listNamespaces()).namespaces).toEqual([]);
  await expect(engine.createNamespace({ namespace: ['intruder'] })).rejects.toMatchObject({ status: 403 });

  // The admin revokes it; its next call is 401.
  const revoked = await gateway().delete(`/v1/orgs/${orgId}/agents/nightly-report`).set(bearer(key));
  expect(revoked.status).toBe(200);
  expectError(await gateway().get('/v1/warehouses').set(bearer(agentKey)), 401, 'api_key_revoked');
}, 90_000);
