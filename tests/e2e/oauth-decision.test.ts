import { join, uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, sql, stack } from './helpers';
import { authorizeFrom, consentRequest, newCatalogOf, personWithSession, serveDocuments, valid, type Served } from '../support/oauth';

// Spec: POST /v1/oauth/authorize/decision — a person answers a consent
// request in a login session. Deny: back to the client with access_denied.
// Allow: a token record of kind mcp (listed with the organisation's agents;
// no API key), or the one bound to person and client with its grants
// replaced; then a single-use code valid 10 minutes, only its hash kept.
// Authorization requests come from this file's own loopback address (they
// are budgeted per address); client documents from 127.0.0.77, the host the
// e2e stack lets past the metadata guard.

const MINE = '127.0.0.63';
const REDIRECT = 'http://127.0.0.1:50123/callback';

let docs: Served;
let person: Awaited<ReturnType<typeof personWithSession>>;
let scratch: string;

const clientUrl = (name = 'client-decision') => `${docs.base}/${name}.json`;
const newRequest = async (client = clientUrl(), extra = {}) => consentRequest(await authorizeFrom(MINE, valid(client, extra)));
const decide = (credential: string, body: unknown) => gateway().post('/v1/oauth/authorize/decision').set(bearer(credential)).send(body as object);

beforeAll(async () => {
  docs = await serveDocuments('127.0.0.77', () => docs.base);
  person = await personWithSession();
  scratch = await newCatalogOf(person, 'scratch');
}, 90_000);
afterAll(async () => {
  await new Promise((r) => docs.server.close(r));
});

/** The parameters of a redirect to the client, checked to go to its redirect URI. */
function backToClient(redirectTo: string): Record<string, string> {
  const u = new URL(redirectTo);
  expect(`${u.origin}${u.pathname}`).toBe(REDIRECT);
  return Object.fromEntries(u.searchParams);
}

/** supertest against the control plane's own port (its internal routes). */

const codeRows = (requestId: string) => sql(`SELECT * FROM oauth_codes WHERE request_id = $1`, [requestId]);

describe('POST /v1/oauth/authorize/decision: refusals', () => {
  test('an API key: 403 session_required; a token: 403 forbidden; nothing: 401', async () => {
    const id = await newRequest();
    const signup = await gateway().post('/v1/signup').send({ email: `odk-${uniq()}${uniq()}@example.com`, workspace: `odk-${uniq()}`, accept_terms: true });
    expect(signup.status).toBe(201);
    expectError(await decide(signup.body.api_key, { request_id: id, allow: false }), 403, 'session_required');
    const token = (await gateway().post('/v1/tokens').send({ api_key: signup.body.api_key })).body.access_token as string;
    expectError(await decide(token, { request_id: id, allow: false }), 403, 'forbidden');
    expectError(await gateway().post('/v1/oauth/authorize/decision').send({ request_id: id, allow: false }), 401, 'unauthorized');
    // None of them decided anything.
    expect((await sql(`SELECT status FROM oauth_requests WHERE id = $1`, [id]))[0].status).toBe('pending');
  });

  test('unknown: 404; expired: 410 oauth_request_expired; decided: 410 oauth_request_decided', async () => {
    expectError(await decide(person.access, { request_id: 'oar_00000000000000000000000000000000', allow: false }), 404, 'oauth_request_not_found');
    const expired = await newRequest();
    await sql(`UPDATE oauth_requests SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    expectError(await decide(person.access, { request_id: expired, allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] }), 410, 'oauth_request_expired');
    const id = await newRequest();
    expect((await decide(person.access, { request_id: id, allow: false })).status).toBe(200);
    expectError(await decide(person.access, { request_id: id, allow: false }), 410, 'oauth_request_decided');
    expectError(await decide(person.access, { request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] }), 410, 'oauth_request_decided');
  });

  test('malformed bodies are 400, never 5xx; an unknown catalog 404 warehouse_not_found; an unknown organisation 404 org_not_found', async () => {
    const id = await newRequest();
    for (const body of [{}, { request_id: id }, { request_id: id, allow: 'yes' }, { request_id: id, allow: true }, { request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'admin' }] },
      { request_id: id, allow: true, grants: [], role: 'owner' }, { request_id: id, allow: false, extra: 1 }, [1, 2], { request_id: 7, allow: false }]) {
      const res = await decide(person.access, body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
    }
    expectError(await decide(person.access, { request_id: id, allow: true, grants: [] }), 400, 'invalid_value');
    expectError(await decide(person.access, { request_id: id, allow: true, grants: [{ warehouse_id: 'wh_nope_nothing', level: 'read' }] }), 404, 'warehouse_not_found');
    expectError(await decide(person.access, { request_id: id, allow: true, org_id: 'org_nothing', grants: [{ warehouse_id: person.lake, level: 'read' }] }), 404, 'org_not_found');
    // Still undecided after every refusal.
    expect((await sql(`SELECT status FROM oauth_requests WHERE id = $1`, [id]))[0].status).toBe('pending');
  });
});

describe('POST /v1/oauth/authorize/decision: deny', () => {
  test('allowed false, back to the client with access_denied, state and iss; nothing made', async () => {
    const id = await newRequest();
    const res = await decide(person.access, { request_id: id, allow: false });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      allowed: false, redirect_to: expect.any(String), client: expect.objectContaining({ client_id: clientUrl(), client_name: 'Test Tool' }),
      scope: ['catalogs:read', 'catalogs:write'], expires_in: null, token: null, note: expect.any(String),
    });
    expect(backToClient(res.body.redirect_to)).toEqual({ error: 'access_denied', error_description: expect.any(String), state: 'st-123', iss: stack().base_url });
    expect(await codeRows(id)).toEqual([]);
    expect((await sql(`SELECT status, decision, decided_by FROM oauth_requests WHERE id = $1`, [id]))[0]).toEqual({ status: 'decided', decision: 'denied', decided_by: person.principalId });
  });
});

describe('POST /v1/oauth/authorize/decision: allow', () => {
  test('an mcp token record with the grants chosen, no API key, listed with the agents; a code whose hash alone is kept', async () => {
    const id = await newRequest();
    const res = await decide(person.access, { request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'write' }, { warehouse_id: 'scratch', level: 'read' }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      allowed: true,
      redirect_to: expect.any(String),
      client: { client_id: clientUrl(), client_name: 'Test Tool', client_uri: 'https://tool.example.com', logo_uri: 'https://tool.example.com/logo.png', host: new URL(clientUrl()).host, registration: 'cimd' },
      scope: ['catalogs:read', 'catalogs:write'],
      expires_in: 600,
      token: {
        agent_id: expect.stringMatching(/^p_[0-9a-f]{32}$/), name: `Test Tool for ${person.email}`, org_id: person.org.org_id, role: 'member', kind: 'mcp',
        grants: expect.arrayContaining([{ warehouse_id: person.lake, name: 'lake', level: 'write' }, { warehouse_id: scratch, name: 'scratch', level: 'read' }]),
        capped: [], reused: false, connection: expect.objectContaining({ agent_id: expect.any(String), org_id: person.org.org_id, role: 'member' }),
      },
      note: expect.any(String),
    });
    expect(res.body.token.grants).toHaveLength(2);
    const back = backToClient(res.body.redirect_to);
    expect(back).toEqual({ code: expect.stringMatching(/^oac_[A-Za-z0-9_-]{43}$/), state: 'st-123', iss: stack().base_url });

    const [code] = await codeRows(id);
    expect(code).toMatchObject({
      client_id: clientUrl(), redirect_uri: REDIRECT, code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', resource: `${stack().base_url}/mcp`,
      scope: 'catalogs:read catalogs:write', agent_id: res.body.token.agent_id, person_id: person.principalId, org_id: person.org.org_id, used_at: null,
    });
    expect(code.code_hash).not.toContain(back.code.slice(4));
    const seconds = (new Date(code.expires_at).getTime() - Date.now()) / 1000;
    expect(seconds).toBeGreaterThan(590);
    expect(seconds).toBeLessThanOrEqual(600);

    const listed = await gateway().get(`/v1/orgs/${person.org.org_id}/agents`).set(bearer(person.access));
    expect(listed.status).toBe(200);
    const mine = listed.body.agents.find((a: { agent_id: string }) => a.agent_id === res.body.token.agent_id);
    expect(mine).toMatchObject({ kind: 'mcp', role: 'member', status: 'active', created_via: 'oauth', name: `Test Tool for ${person.email}` });
    // No API key: identity mints its access tokens at POST /oauth/token.
    expect(await sql(`SELECT key_id FROM api_keys WHERE principal_id = $1`, [res.body.token.agent_id])).toEqual([]);
    expect((await sql(`SELECT kind::text FROM principals WHERE id = $1`, [res.body.token.agent_id]))[0].kind).toBe('mcp');
    expect(await sql(`SELECT agent_id, org_id FROM oauth_bindings WHERE person_id = $1 AND client_id = $2`, [person.principalId, clientUrl()]))
      .toEqual([{ agent_id: res.body.token.agent_id, org_id: person.org.org_id }]);

    // The same person and client again: the same record, its grants replaced.
    const again = await newRequest();
    const reused = await decide(person.access, { request_id: again, allow: true, grants: [{ warehouse_id: scratch, level: 'write' }] });
    expect(reused.status).toBe(200);
    expect(reused.body.token).toMatchObject({ agent_id: res.body.token.agent_id, reused: true, kind: 'mcp', grants: [{ warehouse_id: scratch, name: 'scratch', level: 'write' }] });
    const detail = await gateway().get(`/v1/orgs/${person.org.org_id}/agents/${res.body.token.agent_id}`).set(bearer(person.access));
    expect(detail.body.grants).toEqual([{ warehouse_id: scratch, name: 'scratch', level: 'write' }]);
    expect((await codeRows(again))[0].agent_id).toBe(res.body.token.agent_id);

    // An admin may ask for an admin token (the bound record's role follows).
    const admin = await decide(person.access, { request_id: await newRequest(), allow: true, role: 'admin', grants: [{ warehouse_id: person.lake, level: 'read' }] });
    expect(admin.status).toBe(200);
    expect(admin.body.token).toMatchObject({ agent_id: res.body.token.agent_id, role: 'admin', reused: true });

    // A revoked record is not reused: a new one is made and bound.
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${res.body.token.agent_id}`).set(bearer(person.access))).status).toBeLessThan(300);
    const fresh = await decide(person.access, { request_id: await newRequest(), allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] });
    expect(fresh.status).toBe(200);
    expect(fresh.body.token.reused).toBe(false);
    expect(fresh.body.token.agent_id).not.toBe(res.body.token.agent_id);
  });

  test('a member: grants capped by their level, a catalog held on nothing refused, an admin token refused', async () => {
    const member = await personWithSession();
    await join(person.org, { principal_id: member.principalId, api_key: '', key_id: '', email: member.email }, 'member');
    const grant = await gateway().put(`/v1/warehouses/${person.lake}/grants/${member.principalId}`).set(bearer(person.access)).send({ level: 'read' });
    expect(grant.status).toBeLessThan(300);
    // A member reads every catalog unless an admin takes it away: nothing on scratch.
    const none = await gateway().delete(`/v1/warehouses/${scratch}/grants/${member.principalId}`).set(bearer(person.access));
    expect(none.status).toBeLessThan(300);
    const id = await newRequest(clientUrl('client-member'));
    const org = person.org.org_id;

    expectError(await decide(member.access, { request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] }), 409, 'org_required');
    const nothing = expectError(await decide(member.access, { request_id: id, allow: true, org_id: org, grants: [{ warehouse_id: person.lake, level: 'read' }, { warehouse_id: scratch, level: 'read' }] }), 403, 'forbidden');
    expect(nothing.warehouse_id).toBe(scratch);
    expectError(await decide(member.access, { request_id: id, allow: true, org_id: org, role: 'admin', grants: [{ warehouse_id: person.lake, level: 'read' }] }), 403, 'insufficient_role');
    expect((await sql(`SELECT status FROM oauth_requests WHERE id = $1`, [id]))[0].status).toBe('pending');

    const res = await decide(member.access, { request_id: id, allow: true, org_id: org, grants: [{ warehouse_id: person.lake, level: 'write' }] });
    expect(res.status).toBe(200);
    expect(res.body.token).toMatchObject({
      org_id: org, role: 'member', kind: 'mcp', reused: false,
      grants: [{ warehouse_id: person.lake, name: 'lake', level: 'read' }],
      capped: [{ warehouse_id: person.lake, name: 'lake', asked: 'write', level: 'read', my_level: 'read' }],
    });
  });

  test('20 decisions of one request at once: exactly one decision, one record, one code', async () => {
    const id = await newRequest(clientUrl('client-race'));
    const [{ now: before }] = await sql(`SELECT now()`);
    const answers = await Promise.all(Array.from({ length: 20 }, () => decide(person.access, { request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] })));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) expectError(a, 410, 'oauth_request_decided');
    expect(ok[0].body.token.reused).toBe(false);
    expect(await codeRows(id)).toHaveLength(1);
    const made = await sql(
      `SELECT p.id FROM memberships m JOIN principals p ON p.id = m.principal_id WHERE m.org_id = $1 AND p.kind = 'mcp' AND m.created_at >= $2`,
      [person.org.org_id, before],
    );
    expect(made).toEqual([{ id: ok[0].body.token.agent_id }]);
    expect(await sql(`SELECT agent_id FROM oauth_bindings WHERE person_id = $1 AND client_id = $2`, [person.principalId, clientUrl('client-race')]))
      .toEqual([{ agent_id: ok[0].body.token.agent_id }]);
  });
});

describe('GET /v1/oauth/authorize/pending after an allow: the record an allow would reuse', () => {
  const pending = (credential: string, requestId: string, orgId?: string) =>
    gateway().get('/v1/oauth/authorize/pending').query({ request_id: requestId, ...(orgId ? { org_id: orgId } : {}) }).set(bearer(credential));
  const granted = (body: { warehouses: Array<{ warehouse_id: string; granted: string | null }> }) =>
    Object.fromEntries(body.warehouses.map((w) => [w.warehouse_id, w.granted]));

  test('the same person and client: existing is that record with its grants, granted per catalog; another client or person: null; revoked: null', async () => {
    const client = clientUrl('client-existing');
    const allowed = await decide(person.access, { request_id: await newRequest(client), allow: true, grants: [{ warehouse_id: person.lake, level: 'write' }, { warehouse_id: scratch, level: 'read' }] });
    expect(allowed.status).toBe(200);
    const agentId = allowed.body.token.agent_id;

    // A second authorization request from the same client, read by the same person.
    const again = await pending(person.access, await newRequest(client));
    expect(again.status).toBe(200);
    expect(again.body.existing).toEqual({
      // The name the allow gave it (`-n` added: this file's other clients are named alike).
      agent_id: agentId, name: allowed.body.token.name, role: 'member',
      grants: expect.arrayContaining([{ warehouse_id: person.lake, name: 'lake', level: 'write' }, { warehouse_id: scratch, name: 'scratch', level: 'read' }]),
    });
    expect(again.body.existing.grants).toHaveLength(2);
    expect(granted(again.body)).toEqual({ [person.lake]: 'write', [scratch]: 'read' });

    // Another client of the same person: nothing bound.
    const other = await pending(person.access, await newRequest(clientUrl('client-existing-other')));
    expect(other.status).toBe(200);
    expect(other.body.existing).toBeNull();
    expect(Object.values(granted(other.body))).toEqual([null, null]);

    // Another person of the same organisation, the same client: nothing bound to them.
    const member = await personWithSession();
    await join(person.org, { principal_id: member.principalId, api_key: '', key_id: '', email: member.email }, 'member', { confined: false });
    const theirs = await pending(member.access, await newRequest(client), person.org.org_id);
    expect(theirs.status).toBe(200);
    expect(theirs.body.organization.org_id).toBe(person.org.org_id);
    expect(theirs.body.existing).toBeNull();
    expect(theirs.body.warehouses.every((w: { granted: unknown }) => w.granted === null)).toBe(true);

    // Revoked: no existing record (an allow would make a new one).
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${agentId}`).set(bearer(person.access))).status).toBe(200);
    const revoked = await pending(person.access, await newRequest(client));
    expect(revoked.status).toBe(200);
    expect(revoked.body.existing).toBeNull();
    expect(Object.values(granted(revoked.body))).toEqual([null, null]);
  });

});

describe('the organisation policy (PATCH /v1/orgs/{org_id}/policy oauth_consent)', () => {
  test('switched off: an allow is 403 org_policy_forbids and makes nothing (the request stays open); a deny still answers the client; back on, allowed', async () => {
    const own = await personWithSession();
    const setConsent = (v: string) => gateway().patch(`/v1/orgs/${own.org.org_id}/policy`).set(bearer(own.access)).send({ oauth_consent: v });
    expect((await setConsent('nobody')).status).toBe(200);
    const id = await newRequest(clientUrl('client-policy'));
    const refused = expectError(await decide(own.access, { request_id: id, allow: true, grants: [{ warehouse_id: own.lake, level: 'read' }] }), 403, 'org_policy_forbids');
    expect(refused.policy).toEqual({ oauth_consent: 'nobody' });
    expect((await sql(`SELECT status FROM oauth_requests WHERE id = $1`, [id]))[0].status).toBe('pending');
    expect(await sql(`SELECT 1 FROM memberships WHERE org_id = $1 AND joined_via = 'oauth'`, [own.org.org_id])).toEqual([]);
    const denied = await decide(own.access, { request_id: id, allow: false });
    expect(denied.status).toBe(200);
    expect(backToClient(denied.body.redirect_to).error).toBe('access_denied');

    // Reserved to admins: this person is the admin, so it goes through.
    expect((await setConsent('admins')).status).toBe(200);
    const allowed = await decide(own.access, { request_id: await newRequest(clientUrl('client-policy')), allow: true, grants: [{ warehouse_id: own.lake, level: 'read' }] });
    expect(allowed.status).toBe(200);
  });
});
