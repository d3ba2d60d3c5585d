import { uniq } from './control-plane-helpers';
import { gateway, sql } from './helpers';
import { codeIn, newestMailTo } from '../support/mail';

// What sign-up makes is audited in the transaction that makes it: a
// reservation (`org.reserve`), its activation (`org.activate`), a new
// organisation (`org.create`) and the one-call sign-up's first key
// (`api_key.create`). The proof is xmin, the id of the transaction that wrote a
// row version: the act's row and its event share it only when they commit
// together.

const txOf = async (query: string, values: unknown[]): Promise<string> => {
  const rows = await sql<{ tx: string }>(query, values);
  expect(rows).toHaveLength(1);
  return rows[0].tx;
};

const eventOf = async (action: string, targetId: string) => {
  const rows = await sql(`SELECT xmin::text AS tx, actor_id, actor_kind, org_id, target_type, target_id, request_id, data FROM audit_events WHERE action = $1 AND target_id = $2`, [action, targetId]);
  expect(rows).toHaveLength(1);
  return rows[0];
};

test('a reservation and its activation each commit with their event', async () => {
  const email = `reserve-${uniq()}${uniq()}@example.com`;
  const handle = `res-${uniq()}${uniq()}`;
  const start = await gateway().post('/v1/signup/start').send({ email, organization_name: 'Reserved Org', handle });
  expect(start.status).toBe(202);
  const orgId: string = start.body.organization.org_id;
  expect(await eventOf('org.reserve', orgId)).toEqual({
    tx: await txOf(`SELECT xmin::text AS tx FROM organizations WHERE id = $1 AND status = 'pending'`, [orgId]),
    actor_id: null, actor_kind: null, org_id: orgId, target_type: 'org', target_id: orgId, request_id: start.headers['x-request-id'],
    data: { name: 'Reserved Org', handle, via: 'signup', client_address: expect.any(String) },
  });

  const verify = await gateway().post('/v1/signup/verify').send({ email, code: codeIn(await newestMailTo(email)), accept_terms: true });
  expect(verify.status).toBe(201);
  expect(verify.body.organization).toMatchObject({ org_id: orgId, joined_via: 'creator' });
  const principalId: string = verify.body.principal_id;
  expect(await eventOf('org.activate', orgId)).toEqual({
    tx: await txOf(`SELECT xmin::text AS tx FROM memberships WHERE org_id = $1 AND principal_id = $2`, [orgId, principalId]),
    actor_id: principalId, actor_kind: 'human', org_id: orgId, target_type: 'org', target_id: orgId, request_id: verify.headers['x-request-id'], data: {},
  });
}, 60_000);

test('the one-call sign-up: the first key and the new organisation each commit with their event', async () => {
  const workspace = `audit-${uniq()}`;
  const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, accept_terms: true });
  expect(signup.status).toBe(201);
  const principalId: string = signup.body.principal_id;
  const orgId: string = signup.body.organization.org_id;

  // Before the key is used (an authentication records its last use on its row).
  const [key] = await sql<{ key_id: string; tx: string }>(`SELECT key_id, xmin::text AS tx FROM api_keys WHERE principal_id = $1`, [principalId]);
  expect(await eventOf('api_key.create', key.key_id)).toEqual({
    tx: key.tx, actor_id: principalId, actor_kind: 'human', org_id: null, target_type: 'api_key', target_id: key.key_id, request_id: signup.headers['x-request-id'],
    data: { label: 'signup', principal_id: principalId, via: 'signup' },
  });
  expect(await eventOf('org.create', orgId)).toEqual({
    tx: await txOf(`SELECT xmin::text AS tx FROM memberships WHERE org_id = $1 AND principal_id = $2`, [orgId, principalId]),
    actor_id: principalId, actor_kind: 'human', org_id: orgId, target_type: 'org', target_id: orgId, request_id: signup.headers['x-request-id'],
    data: { name: workspace, handle: expect.any(String) },
  });
}, 60_000);
