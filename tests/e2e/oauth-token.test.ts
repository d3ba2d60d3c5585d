import { createHash } from 'node:crypto';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { bearer, gateway, sql, stack } from './helpers';
import { requestFrom } from '../support/from-address';
import { authorizeFrom, consentRequest, mcpUrl, personWithSession, serveDocuments, valid, type Served } from '../support/oauth';

// Spec: POST /oauth/token, grant_type=authorization_code — the code an
// allowed consent minted, exchanged once with the PKCE verifier (this file's
// requests send the S256 challenge of VERIFIER). A second
// use of a code revokes what the first produced. Refusals in the flat form.
// refresh_token and revocation: oauth-refresh.test.ts.

const MINE = '127.0.0.64';
const VERIFIER = 'a-verifier-of-this-test-file-that-is-long-enough_0123456789~.';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const REDIRECT = 'http://127.0.0.1:50123/callback';

let docs: Served;
let person: Awaited<ReturnType<typeof personWithSession>>;
const clientId = () => `${docs.base}/client-token.json`;

beforeAll(async () => {
  docs = await serveDocuments('127.0.0.77', () => docs.base);
  person = await personWithSession();
}, 90_000);
afterAll(async () => {
  await new Promise((r) => docs.server.close(r));
});

/** A fresh code: authorize, then allow `lake` at read. */
async function newCode(): Promise<{ code: string; agentId: string }> {
  const id = consentRequest(await authorizeFrom(MINE, valid(clientId(), { code_challenge: CHALLENGE })));
  const res = await gateway().post('/v1/oauth/authorize/decision').set(bearer(person.access))
    .send({ request_id: id, allow: true, grants: [{ warehouse_id: person.lake, level: 'read' }] });
  expect(res.status).toBe(200);
  return { code: new URL(res.body.redirect_to).searchParams.get('code')!, agentId: res.body.token.agent_id };
}

const token = (body: Record<string, string>, form = true) => requestFrom(MINE, `${stack().base_url}/oauth/token`, {
  method: 'POST',
  headers: { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
  body: form ? new URLSearchParams(body).toString() : JSON.stringify(body),
});
const exchange = (code: string, extra: Record<string, string> = {}) =>
  ({ grant_type: 'authorization_code', code, code_verifier: VERIFIER, client_id: clientId(), redirect_uri: REDIRECT, resource: mcpUrl(), ...extra });

function flat(res: { status: number; body: any }, status: number, error: string) {
  expect([res.status, res.body]).toEqual([status, { error, error_description: expect.any(String) }]);
}

describe('POST /oauth/token: authorization_code', () => {
  test('a form exchange: an RS256 access token for the resource, the record as sub, the person as act.sub; a refresh token; no-store', async () => {
    const { code, agentId } = await newCode();
    const res = await token(exchange(code));
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'Bearer', expires_in: 900,
      refresh_token: expect.stringMatching(/^ort_ogr_[0-9a-f]{32}_[A-Za-z0-9_-]{43}$/), refresh_expires_in: 2_592_000, scope: 'catalogs:read catalogs:write',
    });
    expect(decodeProtectedHeader(res.body.access_token).alg).toBe('RS256');
    const claims = decodeJwt(res.body.access_token);
    expect(claims).toMatchObject({
      iss: stack().base_url, aud: mcpUrl(), sub: agentId, act: { sub: person.principalId }, scope: 'catalogs:read catalogs:write', client_id: clientId(), kind: 'mcp',
    });
    expect(claims.exp! - claims.iat!).toBe(900);
    expect((await sql(`SELECT used_at FROM oauth_codes WHERE agent_id = $1 ORDER BY created_at DESC LIMIT 1`, [agentId]))[0].used_at).not.toBeNull();
  });

  test('JSON is accepted too', async () => {
    const { code } = await newCode();
    expect((await token(exchange(code), false)).status).toBe(200);
  });

  test('a second use of a code: invalid_grant, and the family the first made is revoked', async () => {
    const { code } = await newCode();
    const first = await token(exchange(code));
    expect(first.status).toBe(200);
    const family = first.body.refresh_token.split('_').slice(1, 3).join('_');
    flat(await token(exchange(code)), 400, 'invalid_grant');
    const [row] = await sql(`SELECT revoked_at, revoke_reason FROM oauth_grants WHERE id = $1`, [family]);
    expect(row.revoked_at).not.toBeNull();
    expect(row.revoke_reason).toBe('code_reused');
  });

  test('20 exchanges of one code at once: one answer, and the family it made revoked by the rival uses', async () => {
    const { code } = await newCode();
    const answers = await Promise.all(Array.from({ length: 20 }, () => token(exchange(code))));
    const ok = answers.filter((a) => a.status === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.status !== 200)) flat(a, 400, 'invalid_grant');
    const family = ok[0].body.refresh_token.split('_').slice(1, 3).join('_');
    expect((await sql(`SELECT revoke_reason FROM oauth_grants WHERE id = $1`, [family]))[0].revoke_reason).toBe('code_reused');
    // Nineteen rival uses, one revocation audited.
    expect(await sql(`SELECT data->>'reason' AS reason FROM audit_events WHERE action = 'oauth.revoke' AND target_id = $1`, [family])).toEqual([{ reason: 'code_reused' }]);
  });

  test('wrong verifier, redirect, client, an unknown or expired code: invalid_grant; another resource: invalid_target; none of them spends the code', async () => {
    const { code } = await newCode();
    flat(await token(exchange(code, { code_verifier: 'x'.repeat(43) })), 400, 'invalid_grant');
    flat(await token(exchange(code, { redirect_uri: 'http://127.0.0.1:50123/other' })), 400, 'invalid_grant');
    flat(await token(exchange(code, { client_id: `${docs.base}/client-other.json` })), 400, 'invalid_grant');
    flat(await token(exchange('oac_nothing')), 400, 'invalid_grant');
    // A client this server cannot know: 401 invalid_client.
    flat(await token(exchange(code, { client_id: 'dcr_neverregistered' })), 401, 'invalid_client');
    flat(await token(exchange(code, { client_id: 'not a client' })), 401, 'invalid_client');
    flat(await token(exchange(code, { resource: 'https://elsewhere.example.com/mcp' })), 400, 'invalid_target');
    expect((await token(exchange(code))).status).toBe(200);
    const late = await newCode();
    await sql(`UPDATE oauth_codes SET expires_at = now() - interval '1 second' WHERE code_hash = encode(sha256($1::bytea), 'hex')`, [late.code]);
    flat(await token(exchange(late.code)), 400, 'invalid_grant');
  });

  test('a revoked token record: invalid_grant', async () => {
    const { code, agentId } = await newCode();
    expect((await gateway().delete(`/v1/orgs/${person.org.org_id}/agents/${agentId}`).set(bearer(person.access))).status).toBeLessThan(300);
    flat(await token(exchange(code)), 400, 'invalid_grant');
  });

  test('malformed: invalid_request; another grant type: unsupported_grant_type; never 5xx', async () => {
    flat(await token({}), 400, 'invalid_request');
    flat(await token({ grant_type: 'authorization_code', code: 'x' }), 400, 'invalid_request');
    flat(await token({ grant_type: 'password' }), 400, 'unsupported_grant_type');
    flat(await token({ grant_type: 'refresh_token', refresh_token: 'x' }), 400, 'invalid_request');
    const bad = await requestFrom(MINE, `${stack().base_url}/oauth/token`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{nope' });
    flat(bad, 400, 'invalid_request');
  });
});
