import { createHash } from 'node:crypto';
import { decodeJwt } from 'jose';
import { join } from './control-plane-helpers';
import { bearer, expectError, gateway, sql, stack } from './helpers';
import { requestFrom } from '../support/from-address';
import { authorizeFrom, consentRequest, mcpUrl, newCatalogOf, personWithSession, serveDocuments, valid, type Served } from '../support/oauth';

// Spec: POST /oauth/token grant_type=refresh_token (rotation; reuse of a
// rotated-out token revokes the family; a narrower scope honoured),
// POST /oauth/revoke (always {}), and Authentication 1: the control plane
// accepts these access tokens, seeing exactly the token record's grants like
// a member agent; revoking the record or the family refuses them at once.

const MINE = '127.0.0.67';
const VERIFIER = 'the-refresh-file-verifier-long-enough-for-pkce_0123456789-._~';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const REDIRECT = 'http://127.0.0.1:50123/callback';

let docs: Served;
let person: Awaited<ReturnType<typeof personWithSession>>;
let other: Awaited<ReturnType<typeof personWithSession>>;
let scratch: string;
const clientId = () => `${docs.base}/client-refresh.json`;

beforeAll(async () => {
  docs = await serveDocuments('127.0.0.77', () => docs.base);
  [person, other] = await Promise.all([personWithSession(), personWithSession()]);
  scratch = await newCatalogOf(person, 'scratch');
}, 120_000);
afterAll(async () => {
  await new Promise((r) => docs.server.close(r));
});

interface Pair { access_token: string; refresh_token: string; scope: string; agentId: string }

/** Authorize with `scope`, allow `grants`, exchange the code: a fresh pair (each call a new family; the record is the person's one for this client). */
async function pairFor(grants: Array<{ warehouse_id: string; level: 'read' | 'write' }>, scope = 'catalogs:read catalogs:write', who = person, client = clientId()): Promise<Pair> {
  const id = consentRequest(await authorizeFrom(MINE, valid(client, { code_challenge: CHALLENGE, scope })));
  const decided = await gateway().post('/v1/oauth/authorize/decision').set(bearer(who.access)).send({ request_id: id, allow: true, grants });
  expect(decided.status).toBe(200);
  const code = new URL(decided.body.redirect_to).searchParams.get('code')!;
  const res = await token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client, redirect_uri: REDIRECT, resource: mcpUrl() });
  expect(res.status).toBe(200);
  return { ...res.body, agentId: decided.body.token.agent_id };
}

const post = (path: string, body: Record<string, string>) => requestFrom(MINE, `${stack().base_url}${path}`, {
  method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(body).toString(),
});
const token = (body: Record<string, string>) => post('/oauth/token', body);
const revoke = (body: Record<string, string>) => post('/oauth/revoke', body);
const refresh = (refreshToken: string, extra: Record<string, string> = {}) => token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId(), ...extra });
const familyOf = (p: { refresh_token: string }) => p.refresh_token.split('_').slice(1, 3).join('_');
/** Moves the family's last rotation back past the race window, as if the rotated-out token came back later. */
const ageRotation = (family: string) => sql(`UPDATE oauth_grants SET rotated_at = now() - interval '1 minute' WHERE id = $1`, [family]);

function flat(res: { status: number; body: any }, status: number, error: string) {
  expect([res.status, res.body]).toEqual([status, { error, error_description: expect.any(String) }]);
}

describe('POST /oauth/token: refresh_token', () => {
  test('rotates: a new pair for the same record and family, the expiry slides, the old token is the previous one', async () => {
    const first = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    await sql(`UPDATE oauth_grants SET expires_at = now() + interval '1 day' WHERE id = $1`, [familyOf(first)]);
    const res = await refresh(first.refresh_token);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 900,
      refresh_token: expect.stringMatching(new RegExp(`^ort_${familyOf(first)}_[A-Za-z0-9_-]{43}$`)), refresh_expires_in: 2_592_000, scope: 'catalogs:read catalogs:write',
    });
    expect(res.body.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(res.body.access_token)).toMatchObject({ sub: first.agentId, act: { sub: person.principalId }, sid: familyOf(first), aud: mcpUrl(), kind: 'mcp' });
    const [row] = await sql(`SELECT expires_at > now() + interval '29 days' AS slid, rotated_at IS NOT NULL AS rotated FROM oauth_grants WHERE id = $1`, [familyOf(first)]);
    expect(row).toEqual({ slid: true, rotated: true });
    // The new one rotates again.
    expect((await refresh(res.body.refresh_token)).status).toBe(200);
  });

  test('the rotated-out token coming back: invalid_grant and the whole family revoked — the newest refresh token and its access token too', async () => {
    const first = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const second = await refresh(first.refresh_token);
    expect(second.status).toBe(200);
    expect((await gateway().get('/v1/warehouses').set(bearer(second.body.access_token))).status).toBe(200);
    await ageRotation(familyOf(first));
    flat(await refresh(first.refresh_token), 400, 'invalid_grant');
    expect((await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [familyOf(first)]))[0].revoke_reason).toBe('refresh_reused');
    // A theft signal the organisation's admins read in the audit log.
    expect(await sql(`SELECT actor_id, actor_kind, org_id, data FROM audit_events WHERE action = 'oauth.revoke' AND target_id = $1`, [familyOf(first)])).toEqual([{
      actor_id: first.agentId, actor_kind: 'mcp', org_id: person.org.org_id, data: { reason: 'refresh_reused', client_id: clientId(), on_behalf_of: person.principalId },
    }]);
    flat(await refresh(second.body.refresh_token), 400, 'invalid_grant');
    expectError(await gateway().get('/v1/warehouses').set(bearer(second.body.access_token)), 401, 'unauthorized');
  });

  test('a token rotated out three rotations ago, past the race window: invalid_grant, the family revoked and audited once — its newest refresh and access tokens stop', async () => {
    const chain: Array<{ access_token: string; refresh_token: string }> = [await pairFor([{ warehouse_id: person.lake, level: 'read' }])];
    for (let i = 0; i < 3; i++) {
      const r = await refresh(chain[chain.length - 1].refresh_token);
      expect(r.status).toBe(200);
      chain.push(r.body);
    }
    const family = familyOf(chain[0]);
    const newest = chain[3];
    expect((await gateway().get('/v1/warehouses').set(bearer(newest.access_token))).status).toBe(200);
    // A secret the family never had: refused without harm.
    flat(await refresh(`ort_${family}_${'C'.repeat(43)}`), 400, 'invalid_grant');
    expect((await sql(`SELECT revoked_at FROM oauth_grants WHERE id = $1`, [family]))[0].revoked_at).toBeNull();
    await ageRotation(family);
    flat(await refresh(chain[0].refresh_token), 400, 'invalid_grant');
    expect((await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [family]))[0].revoke_reason).toBe('refresh_reused');
    flat(await refresh(newest.refresh_token), 400, 'invalid_grant');
    expectError(await gateway().get('/v1/warehouses').set(bearer(newest.access_token)), 401, 'unauthorized');
    // Another old token of the family afterwards changes nothing more: one theft event.
    flat(await refresh(chain[1].refresh_token), 400, 'invalid_grant');
    expect(await sql(`SELECT data->>'reason' AS reason FROM audit_events WHERE action = 'oauth.revoke' AND target_id = $1`, [family])).toEqual([{ reason: 'refresh_reused' }]);
  });

  test('an older token of the family at POST /oauth/revoke ends it, audited as the theft signal; another family\'s rotated-out secret under this family\'s id is unknown (cross-tenant)', async () => {
    const mine = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const theirs = await pairFor([{ warehouse_id: other.lake, level: 'read' }], undefined, other);
    const theirsNext = await refresh(theirs.refresh_token);
    expect(theirsNext.status).toBe(200);
    const theirOldSecret = theirs.refresh_token.slice(`ort_${familyOf(theirs)}_`.length);
    flat(await refresh(`ort_${familyOf(mine)}_${theirOldSecret}`), 400, 'invalid_grant');
    expect(await revoke({ token: `ort_${familyOf(mine)}_${theirOldSecret}` })).toMatchObject({ status: 200, body: {} });
    expect(await sql(`SELECT id, revoked_at FROM oauth_grants WHERE id IN ($1, $2) ORDER BY id`, [familyOf(mine), familyOf(theirs)]))
      .toEqual([familyOf(mine), familyOf(theirs)].sort().map((id) => ({ id, revoked_at: null })));

    const second = await refresh(mine.refresh_token);
    expect((await refresh(second.body.refresh_token)).status).toBe(200);
    expect(await revoke({ token: mine.refresh_token })).toMatchObject({ status: 200, body: {} });
    expect((await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [familyOf(mine)]))[0].revoke_reason).toBe('refresh_reused');
    expect((await refresh(theirsNext.body.refresh_token)).status).toBe(200);
  });

  test('20 refreshes with one token at once: one new pair; the rest invalid_grant within the race window, and the family lives on', async () => {
    const first = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => refresh(first.refresh_token)));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) flat(a, 400, 'invalid_grant');
    expect((await sql(`SELECT revoked_at FROM oauth_grants WHERE id = $1`, [familyOf(first)]))[0].revoked_at).toBeNull();
    expect((await refresh(ok[0].body.refresh_token)).status).toBe(200);
  });

  test('a narrower scope is honoured for the new access token (read only on the control plane); a wider or unknown one is invalid_scope; nothing asked is all consented', async () => {
    const first = await pairFor([{ warehouse_id: person.lake, level: 'write' }]);
    const narrow = await refresh(first.refresh_token, { scope: 'catalogs:read' });
    expect([narrow.status, narrow.body.scope, decodeJwt(narrow.body.access_token).scope]).toEqual([200, 'catalogs:read', 'catalogs:read']);
    const lake = await gateway().get(`/v1/warehouses/${person.lake}`).set(bearer(narrow.body.access_token));
    expect([lake.status, lake.body.my_level]).toEqual([200, 'read']);
    expectError(await gateway().patch(`/v1/warehouses/${person.lake}`).set(bearer(narrow.body.access_token)).send({ default_format_version: 2 }), 403, 'insufficient_scope');
    const full = await refresh(narrow.body.refresh_token);
    expect([full.status, full.body.scope]).toEqual([200, 'catalogs:read catalogs:write']);

    const readOnly = await pairFor([{ warehouse_id: person.lake, level: 'read' }], 'catalogs:read');
    flat(await refresh(readOnly.refresh_token, { scope: 'catalogs:read catalogs:write' }), 400, 'invalid_scope');
    flat(await refresh(readOnly.refresh_token, { scope: 'catalogs:admin' }), 400, 'invalid_scope');
    flat(await refresh(readOnly.refresh_token, { scope: '' }), 400, 'invalid_scope');
    // None of those spent the token.
    expect((await refresh(readOnly.refresh_token)).status).toBe(200);
  });

  test('refusals: malformed, unknown, another client, another resource, expired, revoked record — none spends the token', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    flat(await token({ grant_type: 'refresh_token', refresh_token: p.refresh_token }), 400, 'invalid_request');
    flat(await token({ grant_type: 'refresh_token', client_id: clientId() }), 400, 'invalid_request');
    flat(await refresh('ort_nothing'), 400, 'invalid_grant');
    flat(await refresh(`ort_${familyOf(p)}_${'A'.repeat(43)}`), 400, 'invalid_grant');
    flat(await refresh(p.refresh_token, { client_id: `${docs.base}/client-other.json` }), 400, 'invalid_grant');
    flat(await refresh(p.refresh_token, { client_id: 'dcr_neverregistered' }), 401, 'invalid_client');
    flat(await refresh(p.refresh_token, { resource: 'https://elsewhere.example.com/mcp' }), 400, 'invalid_target');
    expect((await sql(`SELECT revoked_at, rotated_at FROM oauth_grants WHERE id = $1`, [familyOf(p)]))[0]).toEqual({ revoked_at: null, rotated_at: null });

    const expired = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    await sql(`UPDATE oauth_grants SET expires_at = now() - interval '1 second' WHERE id = $1`, [familyOf(expired)]);
    flat(await refresh(expired.refresh_token), 400, 'invalid_grant');

    const own = await pairFor([{ warehouse_id: person.lake, level: 'read' }], undefined, person, `${docs.base}/client-refresh-revoked.json`);
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${own.agentId}`).set(bearer(person.access))).status).toBe(200);
    flat(await token({ grant_type: 'refresh_token', refresh_token: own.refresh_token, client_id: `${docs.base}/client-refresh-revoked.json` }), 400, 'invalid_grant');
  });
});

describe('POST /oauth/revoke', () => {
  test('a refresh token: {} and its family ends — refresh refused, its access tokens refused by the control plane at once', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    expect((await gateway().get('/v1/warehouses').set(bearer(p.access_token))).status).toBe(200);
    const res = await revoke({ token: p.refresh_token, token_type_hint: 'refresh_token', client_id: clientId() });
    expect([res.status, res.body, res.headers['cache-control']]).toEqual([200, {}, 'no-store']);
    expect((await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [familyOf(p)]))[0].revoke_reason).toBe('revoked_by_client');
    flat(await refresh(p.refresh_token), 400, 'invalid_grant');
    expectError(await gateway().get('/v1/warehouses').set(bearer(p.access_token)), 401, 'unauthorized');
  });

  test('an access token: {} and its family ends', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    expect(await revoke({ token: p.access_token })).toMatchObject({ status: 200, body: {} });
    flat(await refresh(p.refresh_token), 400, 'invalid_grant');
  });

  test('anything else is {} and changes nothing: garbage, nothing, a token named with another client', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    for (const body of <Array<Record<string, string>>>[{ token: 'garbage' }, {}, { token: `ort_${familyOf(p)}_${'B'.repeat(43)}` }, { token: p.refresh_token, client_id: 'https://another.example.com/c.json' }]) {
      expect(await revoke(body)).toMatchObject({ status: 200, body: {} });
    }
    expect((await refresh(p.refresh_token)).status).toBe(200);
  });

  test('20 revocations of one token at once: all {}, one revocation', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const answers = await Promise.all(Array.from({ length: 20 }, () => revoke({ token: p.refresh_token })));
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array.from({ length: 20 }, () => [200, {}]));
    expect(await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [familyOf(p)])).toEqual([{ revoke_reason: 'revoked_by_client' }]);
    expect(await sql(`SELECT data->>'reason' AS reason FROM audit_events WHERE action = 'oauth.revoke' AND target_id = $1`, [familyOf(p)])).toEqual([{ reason: 'revoked_by_client' }]);
  });
});

describe('the control plane accepts the access tokens (Authentication 1)', () => {
  test('it sees exactly the record\'s grants, at their levels, like a member agent', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const list = await gateway().get('/v1/warehouses').set(bearer(p.access_token));
    expect(list.status).toBe(200);
    expect(list.body.warehouses.map((w: any) => [w.warehouse_id, w.my_level])).toEqual([[person.lake, 'read']]);
    expectError(await gateway().get(`/v1/warehouses/${scratch}`).set(bearer(p.access_token)), 404, 'warehouse_not_found');
    expectError(await gateway().patch(`/v1/warehouses/${person.lake}`).set(bearer(p.access_token)).send({ default_format_version: 2 }), 403, 'forbidden');
  });

  test('a write grant writes; the act is audited as the record on behalf of the person', async () => {
    const p = await pairFor([{ warehouse_id: scratch, level: 'write' }]);
    const now = (await gateway().get(`/v1/warehouses/${scratch}`).set(bearer(p.access_token))).body.default_format_version;
    const res = await gateway().patch(`/v1/warehouses/${scratch}`).set(bearer(p.access_token)).send({ default_format_version: now === 2 ? 3 : 2 });
    expect(res.status).toBe(200);
    const [event] = await sql(`SELECT actor_id, actor_kind, data FROM audit_events WHERE action = 'warehouse.update' AND target_id = $1 ORDER BY id DESC LIMIT 1`, [scratch]);
    expect(event).toMatchObject({ actor_id: p.agentId, actor_kind: 'mcp', data: expect.objectContaining({ on_behalf_of: person.principalId, oauth_client_id: clientId() }) });
  });

  test('a read-scoped token changes nothing, even where the record could write', async () => {
    const p = await pairFor([{ warehouse_id: scratch, level: 'write' }], 'catalogs:read');
    const got = await gateway().get(`/v1/warehouses/${scratch}`).set(bearer(p.access_token));
    expect([got.status, got.body.my_level]).toEqual([200, 'read']);
    expectError(await gateway().patch(`/v1/warehouses/${scratch}`).set(bearer(p.access_token)).send({ default_format_version: 3 }), 403, 'insufficient_scope');
    expectError(await gateway().post('/v1/warehouses').set(bearer(p.access_token)).send({ project_id: person.project, name: 'nope' }), 403, 'insufficient_scope');
  });

  test('it never mints lasting credentials: API keys and agents are refused', async () => {
    const p = await pairFor([{ warehouse_id: scratch, level: 'write' }]);
    expectError(await gateway().post('/v1/api-keys').set(bearer(p.access_token)).send({ label: 'escape' }), 403, 'forbidden');
    expectError(await gateway().post(`/v1/orgs/${person.org.org_id}/agents`).set(bearer(p.access_token)).send({ name: `escape-${Date.now()}` }), 403, 'forbidden');
  });

  test('the person revoking the record: its next call is 401', async () => {
    const client = `${docs.base}/client-refresh-kill.json`;
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }], undefined, person, client);
    expect((await gateway().get('/v1/warehouses').set(bearer(p.access_token))).status).toBe(200);
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${p.agentId}`).set(bearer(person.access))).status).toBe(200);
    expectError(await gateway().get('/v1/warehouses').set(bearer(p.access_token)), 401, 'unauthorized');
  });

  test('a token stands only while its person is a member: removed from the organisation, their tool host\'s next call is 401', async () => {
    const member = await personWithSession();
    await join(person.org, { principal_id: member.principalId, api_key: '', key_id: '', email: member.email }, 'member');
    const client = `${docs.base}/client-refresh-member.json`;
    const id = consentRequest(await authorizeFrom(MINE, valid(client, { code_challenge: CHALLENGE })));
    const decided = await gateway().post('/v1/oauth/authorize/decision').set(bearer(member.access))
      .send({ request_id: id, allow: true, org_id: person.org.org_id, grants: [{ warehouse_id: person.lake, level: 'read' }] });
    expect(decided.status).toBe(200);
    const code = new URL(decided.body.redirect_to).searchParams.get('code')!;
    const t = await token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client, redirect_uri: REDIRECT, resource: mcpUrl() });
    expect(t.status).toBe(200);
    const seen = await gateway().get('/v1/warehouses').set(bearer(t.body.access_token));
    expect(seen.body.warehouses.map((w: any) => [w.warehouse_id, w.my_level])).toEqual([[person.lake, 'read']]);
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/members/${member.principalId}`).set(bearer(person.access))).status).toBe(200);
    expectError(await gateway().get('/v1/warehouses').set(bearer(t.body.access_token)), 401, 'unauthorized');
  });

  test('a token never holds more than its person holds now: a grant revoked, a read revoked, a role lowered take effect on the tool host at once', async () => {
    const colleague = await personWithSession();
    await join(person.org, { principal_id: colleague.principalId, api_key: '', key_id: '', email: colleague.email }, 'member');
    expect((await gateway().put(`/v1/warehouses/${scratch}/grants/${colleague.principalId}`).set(bearer(person.access)).send({ level: 'write' })).status).toBe(200);
    const consent = async (client: string, body: Record<string, unknown>) => {
      const id = consentRequest(await authorizeFrom(MINE, valid(client, { code_challenge: CHALLENGE })));
      const decided = await gateway().post('/v1/oauth/authorize/decision').set(bearer(colleague.access)).send({ request_id: id, allow: true, org_id: person.org.org_id, ...body });
      expect(decided.status).toBe(200);
      const code = new URL(decided.body.redirect_to).searchParams.get('code')!;
      const t = await token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client, redirect_uri: REDIRECT, resource: mcpUrl() });
      expect(t.status).toBe(200);
      return t.body.access_token as string;
    };
    const levelOn = async (access: string, w: string) => {
      const res = await gateway().get(`/v1/warehouses/${w}`).set(bearer(access));
      return res.status === 200 ? res.body.my_level : res.body.error.code;
    };
    const writer = await consent(`${docs.base}/client-refresh-cap.json`, { grants: [{ warehouse_id: scratch, level: 'write' }] });
    expect(await levelOn(writer, scratch)).toBe('write');
    // The colleague's write grant revoked: their implicit read is what the token holds now.
    expect((await gateway().delete(`/v1/warehouses/${scratch}/grants/${colleague.principalId}`).set(bearer(person.access))).status).toBe(200);
    expect(await levelOn(writer, scratch)).toBe('read');
    // Their membership read revoked too (level none): the token does not see the catalog at all.
    expect((await gateway().delete(`/v1/warehouses/${scratch}/grants/${colleague.principalId}`).set(bearer(person.access))).status).toBe(200);
    expect(await levelOn(writer, scratch)).toBe('warehouse_not_found');

    // An admin's admin token, once the admin is a member: it acts as a member token (its explicit grants only: none here).
    expect((await gateway().patch(`/v1/orgs/${person.org.org_id}/members/${colleague.principalId}`).set(bearer(person.access)).send({ role: 'admin' })).status).toBe(200);
    const adminToken = await consent(`${docs.base}/client-refresh-admin.json`, { grants: [{ warehouse_id: person.lake, level: 'write' }], role: 'admin' });
    expect(await levelOn(adminToken, person.lake)).toBe('write');
    expect((await gateway().patch(`/v1/orgs/${person.org.org_id}/members/${colleague.principalId}`).set(bearer(person.access)).send({ role: 'member' })).status).toBe(200);
    expect(await levelOn(adminToken, person.lake)).toBe('read');
  });

  test('a token acts only within its grants, even an admin record: no project, catalog or onboarding; no table where it reads; no publishing', async () => {
    const client = `${docs.base}/client-refresh-confined.json`;
    const id = consentRequest(await authorizeFrom(MINE, valid(client, { code_challenge: CHALLENGE })));
    const decided = await gateway().post('/v1/oauth/authorize/decision').set(bearer(person.access))
      .send({ request_id: id, allow: true, role: 'admin', grants: [{ warehouse_id: scratch, level: 'read' }] });
    expect([decided.status, decided.body.token?.role]).toEqual([200, 'admin']);
    const code = new URL(decided.body.redirect_to).searchParams.get('code')!;
    const t = await token({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: client, redirect_uri: REDIRECT, resource: mcpUrl() });
    const access = t.body.access_token as string;
    // The admin record sees every catalog (its role), yet creates nothing beyond them.
    expect((await gateway().get(`/v1/warehouses/${person.lake}`).set(bearer(access))).body.my_level).toBe('write');
    for (const res of [
      await gateway().post('/v1/projects').set(bearer(access)).send({ name: `p-${Date.now()}` }),
      await gateway().post('/v1/warehouses').set(bearer(access)).send({ project_id: person.project, name: `c_${Date.now()}` }),
      await gateway().post('/v1/onboard').set(bearer(access)).send({}),
    ]) expect(expectError(res, 403, 'forbidden')).toMatchObject({ confined: true, needed: 'admin', role: 'admin' });
    expectError(await gateway().post(`/v1/warehouses/${scratch}/public`).set(bearer(access)).send({ confirm: 'scratch' }), 403, 'person_required');
    expect((await sql(`SELECT count(*)::int AS n FROM projects WHERE org_id = $1`, [person.org.org_id]))[0].n).toBe(1);

    // A member record with read on a catalog: no table there.
    const reader = await pairFor([{ warehouse_id: scratch, level: 'read' }]);
    const refused = expectError(await gateway().post('/v1/tables').set(bearer(reader.access_token)).send({
      warehouse_id: scratch, namespace: 'conf', name: 't', schema: { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }] },
    }), 403, 'forbidden');
    expect(refused).toMatchObject({ level: 'read', needed: 'write' });
  });

  test('cross-tenant: one organisation\'s token reaches nothing of another', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    expectError(await gateway().get(`/v1/warehouses/${other.lake}`).set(bearer(p.access_token)), 404, 'warehouse_not_found');
    const agents = await gateway().get(`/v1/orgs/${other.org.org_id}/agents`).set(bearer(p.access_token));
    expect(agents.status).toBe(404);
    const theirs = await pairFor([{ warehouse_id: other.lake, level: 'read' }], undefined, other);
    expect((await gateway().get('/v1/warehouses').set(bearer(theirs.access_token))).body.warehouses.map((w: any) => w.warehouse_id)).toEqual([other.lake]);
    expectError(await gateway().get(`/v1/warehouses/${person.lake}`).set(bearer(theirs.access_token)), 404, 'warehouse_not_found');
  });

  test('a token whose claims were changed after signing (here: the audience) is refused', async () => {
    const p = await pairFor([{ warehouse_id: person.lake, level: 'read' }]);
    const [h, , s] = p.access_token.split('.');
    const claims = decodeJwt(p.access_token);
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, aud: stack().base_url })).toString('base64url')}.${s}`;
    expectError(await gateway().get('/v1/warehouses').set(bearer(forged)), 401, 'unauthorized');
  });
});
