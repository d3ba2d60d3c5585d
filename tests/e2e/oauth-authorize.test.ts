import { join, uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, sql, stack } from './helpers';
import { requestFrom } from '../support/from-address';
import { CHALLENGE, authorizeFrom, consentRequest, flat, mcpUrl, personWithSession, redirectedError, serveDocuments, valid, type Served } from '../support/oauth';

// Spec: Remote tool-host authorization server (OAuth 2.1), its front half —
// the RFC 8414 document, dynamic registration, the authorization request
// (client metadata documents fetched behind the private-address guard) and
// the consent request the page reads. Client metadata documents are served by
// this file from 127.0.0.77, the one host the e2e stack lets past the guard
// (FLOE_OAUTH_METADATA_ALLOW_HOSTS in global-setup.ts), and the same
// documents from 127.0.0.78, which nothing lets through. Authorization
// requests and registrations are budgeted per caller address: this file's
// come from loopback addresses of its own.

const MINE = '127.0.0.61';

let allowed: Served;
let refused: Served;

beforeAll(async () => {
  allowed = await serveDocuments('127.0.0.77', () => refused.base);
  refused = await serveDocuments('127.0.0.78', () => allowed.base);
});
afterAll(async () => {
  await Promise.all([allowed, refused].map((s) => new Promise((r) => s.server.close(r))));
});

describe('GET /.well-known/oauth-authorization-server', () => {
  test('every field the spec lists, registration included while it is on; public and cacheable', async () => {
    const base = stack().base_url;
    const res = await gateway().get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=3600');
    expect(res.body).toEqual({
      issuer: base,
      authorization_endpoint: `${base}/oauth/authorize`,
      token_endpoint: `${base}/oauth/token`,
      revocation_endpoint: `${base}/oauth/revoke`,
      jwks_uri: `${base}/jwks.json`,
      registration_endpoint: `${base}/oauth/register`,
      scopes_supported: ['catalogs:read', 'catalogs:write'],
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    });
  });
});

const register = (from: string, body: unknown) =>
  requestFrom(from, `${stack().base_url}/oauth/register`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('POST /oauth/register', () => {
  test('a public client: a dcr_ id, no secret, the fields echoed with their defaults', async () => {
    const res = await register(MINE, { client_name: 'Claude-like', redirect_uris: ['http://127.0.0.1/callback', 'com.example.tool:/cb'], client_uri: 'https://tool.example.com', software_id: 'tool-1' });
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^dcr_[0-9a-f]{32}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Claude-like',
      redirect_uris: ['http://127.0.0.1/callback', 'com.example.tool:/cb'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      client_uri: 'https://tool.example.com',
      application_type: 'web',
      software_id: 'tool-1',
      note: expect.stringContaining('deprecated'),
    });
    expect(Math.abs(res.body.client_id_issued_at - Date.now() / 1000)).toBeLessThan(60);
    const [row] = await sql(`SELECT metadata FROM oauth_clients WHERE id = $1`, [res.body.client_id]);
    expect(row.metadata).toMatchObject({ client_name: 'Claude-like', redirect_uris: ['http://127.0.0.1/callback', 'com.example.tool:/cb'] });
  });

  test.each([
    ['plain http to a remote host', ['http://tool.example.com/cb']],
    ['a fragment', ['https://tool.example.com/cb#x']],
    ['javascript:', ['javascript:alert(1)']],
    ['not a URI', ['cb']],
  ])('a redirect URI with %s: 400 invalid_redirect_uri', async (_what, uris) => {
    flat(await register(MINE, { client_name: 'x', redirect_uris: uris }), 400, 'invalid_redirect_uri');
  });

  test.each([
    ['a confidential client', { token_endpoint_auth_method: 'client_secret_basic' }],
    ['no redirect URIs', { redirect_uris: [] }],
    ['no name', { client_name: undefined }],
    ['the implicit flow', { response_types: ['token'] }],
    ['client credentials', { grant_types: ['client_credentials'] }],
    ['a logo over http', { logo_uri: 'http://tool.example.com/logo.png' }],
    ['an unknown application type', { application_type: 'desktop' }],
  ])('%s: 400 invalid_client_metadata', async (_what, change) => {
    flat(await register(MINE, { client_name: 'x', redirect_uris: ['https://tool.example.com/cb'], ...change }), 400, 'invalid_client_metadata');
  });

  test('malformed JSON and a body that is no object answer in the flat form too, as invalid_client_metadata (RFC 7591\'s code)', async () => {
    flat(await register(MINE, '{"client_name":'), 400, 'invalid_client_metadata');
    flat(await register(MINE, '[1,2]'), 400, 'invalid_client_metadata');
  });

  test('the gateway\'s own refusals on the OAuth endpoints are flat too: a repeated parameter, a NUL, a body over the limit', async () => {
    const from = '127.0.0.66';
    flat(await authorizeFrom(from, { ...valid('https://tool.example.com/c.json'), state: ['a', 'b'] }), 400, 'invalid_request');
    flat(await requestFrom(from, `${stack().base_url}/oauth/authorize?client_id=a%00b`), 400, 'invalid_request');
    const big = await requestFrom(from, `${stack().base_url}/oauth/token`, {
      method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=${'x'.repeat(1_100_000)}`,
    });
    flat(big, 413, 'invalid_request');
    // Elsewhere the envelope, as before.
    expect((await requestFrom(from, `${stack().base_url}/v1/warehouses?a=1&a=2`)).body.error).toMatchObject({ code: expect.any(String), request_id: expect.any(String) });
  });

  test('20 registrations an hour from one address, then 429 rate_limited with Retry-After; another address is not held', async () => {
    const from = '127.0.0.63';
    for (let i = 0; i < 20; i++) expect((await register(from, { client_name: `n${i}`, redirect_uris: ['https://tool.example.com/cb'] })).status).toBe(201);
    const limited = await register(from, { client_name: 'one more', redirect_uris: ['https://tool.example.com/cb'] });
    expect(flat(limited, 429, 'rate_limited')).toContain('20 registrations an hour');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    expect((await register('127.0.0.64', { client_name: 'elsewhere', redirect_uris: ['https://tool.example.com/cb'] })).status).toBe(201);
  });
});

describe('GET /oauth/authorize: the client', () => {
  test('a metadata document on an allowed host: a consent request holding the client as it stood, the document fetched once (cached)', async () => {
    const url = `${allowed.base}/client-cached.json`;
    const id = consentRequest(await authorizeFrom(MINE, valid(url)));
    const [row] = await sql(`SELECT * FROM oauth_requests WHERE id = $1`, [id]);
    expect(row).toMatchObject({
      client_id: url, redirect_uri: 'http://127.0.0.1:50123/callback', state: 'st-123', code_challenge: CHALLENGE, resource: mcpUrl(),
      scope: 'catalogs:read catalogs:write', status: 'pending', decided_by: null,
      client: { client_id: url, client_name: 'Test Tool', registration: 'cimd', host: new URL(url).host },
    });
    expect(row.expires_at.getTime() - row.created_at.getTime()).toBe(15 * 60 * 1000);
    consentRequest(await authorizeFrom(MINE, valid(url, { redirect_uri: 'https://tool.example.com/cb' })));
    expect(allowed.hits.get('/client-cached.json')).toBe(1);
  });

  test('a redirect on the same host is followed', async () => {
    // The moved document names its final URL, so it does not match the address asked: refused as another client.
    const d = flat(await authorizeFrom(MINE, valid(`${allowed.base}/redirect-same.json`)), 400, 'invalid_client');
    expect(d).toContain('names another client_id');
    expect(allowed.hits.get('/client-moved.json')).toBe(1);
  });

  test('a registered dcr_ client, its use stamped', async () => {
    const reg = await register(MINE, { client_name: 'Registered', redirect_uris: ['http://127.0.0.1/callback'] });
    consentRequest(await authorizeFrom(MINE, valid(reg.body.client_id)));
    const [row] = await sql(`SELECT last_used_at FROM oauth_clients WHERE id = $1`, [reg.body.client_id]);
    expect(row.last_used_at).not.toBeNull();
  });

  test.each([
    ['no client_id', () => undefined, 'client_id is required'],
    ['an unknown dcr_ id', () => 'dcr_0123456789abcdef', 'no client is registered'],
    ['neither URL nor dcr_', () => 'my-tool', 'https URL'],
    ['an ftp URL', () => 'ftp://tool.example.com/client.json', 'not https'],
    ['plain http to a host not allowed', () => `${refused.base}/client.json`, 'not https'],
    ['https to 127.0.0.1 (loopback)', () => `https://127.0.0.1:${new URL(refused.base).port}/client.json`, 'private, loopback or link-local'],
    ['https to a host not allowed on loopback', () => `${refused.base.replace('http:', 'https:')}/client.json`, 'private, loopback or link-local'],
    ['a name resolving to loopback (localhost)', () => `https://localhost:${new URL(refused.base).port}/client.json`, 'private, loopback or link-local'],
    ['a private 10.x address', () => 'https://10.11.12.13/client.json', 'private, loopback or link-local'],
    ['the link-local metadata address', () => 'https://169.254.169.254/latest/meta-data/client.json', 'private, loopback or link-local'],
    ['a redirect to another host', () => `${allowed.base}/redirect-away.json`, 'redirects to another host'],
    ['a document over 64 KiB', () => `${allowed.base}/big.json`, 'exceeds 64 KiB'],
    ['a document naming another URL', () => `${allowed.base}/names-another.json`, 'names another client_id'],
    ['a document that is not JSON', () => `${allowed.base}/not-json`, 'is not JSON'],
    ['a document listing a redirect Floe refuses', () => `${allowed.base}/bad-redirect-uri.json`, 'lists a redirect URI'],
    ['a document that is not there', () => `${allowed.base}/gone.json`, 'answered 404'],
  ])('%s: 400 invalid_client in the flat form, never a redirect', async (_what, clientId, says) => {
    const res = await authorizeFrom(MINE, valid(clientId() as string));
    expect(res.headers.location).toBeUndefined();
    expect(flat(res, 400, 'invalid_client')).toContain(says);
  });

  test('the guard refused before connecting: the host not allowed saw no request', () => {
    expect([...refused.hits.keys()]).toEqual([]);
  });

  test('the redirect URI: missing, not listed, or another path: 400 invalid_request, never a redirect; loopback on any port', async () => {
    const url = `${allowed.base}/client-redirects.json`;
    for (const redirect of [undefined, 'https://evil.example.com/cb', 'https://tool.example.com/cb2', 'http://127.0.0.1:50123/other', 'http://localhost:50123/callback']) {
      const res = await authorizeFrom(MINE, valid(url, { redirect_uri: redirect }));
      expect(res.headers.location).toBeUndefined();
      flat(res, 400, 'invalid_request');
    }
    for (const port of ['1', '65000']) consentRequest(await authorizeFrom(MINE, valid(url, { redirect_uri: `http://127.0.0.1:${port}/callback` })));
  });
});

describe('GET /oauth/authorize: the rest, refused by a redirect to the client', () => {
  const url = () => `${allowed.base}/client-rest.json`;

  test.each([
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['no response_type', { response_type: undefined }, 'unsupported_response_type'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['a code_challenge that is no S256 hash', { code_challenge: 'short' }, 'invalid_request'],
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['no resource', { resource: undefined }, 'invalid_request'],
    ['another resource', { resource: 'https://other.example.com/mcp' }, 'invalid_target'],
    ['an unknown scope', { scope: 'catalogs:read admin' }, 'invalid_scope'],
    ['a state over 1024 characters', { state: 'x'.repeat(1025) }, 'invalid_request'],
  ])('%s: 302 with error %s, state and iss', async (_what, change: Record<string, string | string[] | undefined>, error) => {
    const res = await authorizeFrom(MINE, valid(url(), change));
    if (change.state) {
      expect(res.status).toBe(302);
      expect(new URL(res.headers.location!).searchParams.get('error')).toBe(error);
      return;
    }
    redirectedError(res, error);
  });

  test('a private-use redirect keeps its scheme; no scope asks for reading', async () => {
    const reg = await register(MINE, { client_name: 'Native', redirect_uris: ['com.example.tool:/cb'], application_type: 'native' });
    const res = await authorizeFrom(MINE, valid(reg.body.client_id, { redirect_uri: 'com.example.tool:/cb', response_type: 'token' }));
    expect(res.headers.location).toMatch(/^com\.example\.tool:\/cb\?error=unsupported_response_type&/);
    const id = consentRequest(await authorizeFrom(MINE, valid(reg.body.client_id, { redirect_uri: 'com.example.tool:/cb', scope: undefined })));
    expect((await sql(`SELECT scope FROM oauth_requests WHERE id = $1`, [id]))[0].scope).toBe('catalogs:read');
  });

  test('120 requests an hour from one address, then 429 rate_limited in the flat form', async () => {
    const from = '127.0.0.62';
    for (let i = 0; i < 120; i++) expect((await authorizeFrom(from, {})).status).toBe(400);
    const limited = await authorizeFrom(from, valid(url()));
    expect(flat(limited, 429, 'rate_limited')).toContain('120 authorization requests an hour');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
  });
});

const pending = (credential: string, requestId: string, orgId?: string) =>
  gateway().get('/v1/oauth/authorize/pending').query({ request_id: requestId, ...(orgId ? { org_id: orgId } : {}) }).set(bearer(credential));

describe('GET /v1/oauth/authorize/pending', () => {
  let person: Awaited<ReturnType<typeof personWithSession>>;
  const url = () => `${allowed.base}/client-pending.json`;
  const newRequest = async (extra = {}) => consentRequest(await authorizeFrom(MINE, valid(url(), extra)));

  beforeAll(async () => {
    person = await personWithSession();
  }, 60_000);

  test('the happy path: authorize, then the consent page reads the request in the person\'s login session', async () => {
    const scratch = await gateway().post('/v1/warehouses').set(bearer(person.access)).send({ project_id: person.project, name: 'scratch' });
    expect(scratch.status).toBe(201);
    const id = await newRequest();
    const res = await pending(person.access, id);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      request_id: id,
      expires_at: expect.any(String),
      expires_in: expect.any(Number),
      client: { client_id: url(), client_name: 'Test Tool', client_uri: 'https://tool.example.com', logo_uri: 'https://tool.example.com/logo.png', host: new URL(url()).host, registration: 'cimd' },
      scopes: ['catalogs:read', 'catalogs:write'],
      scope: 'catalogs:read catalogs:write',
      scope_descriptions: { 'catalogs:read': expect.any(String), 'catalogs:write': expect.any(String) },
      resource: mcpUrl(),
      redirect_host: '127.0.0.1:50123',
      person: { principal_id: person.principalId, email: person.email },
      organization: { org_id: person.org.org_id, name: person.org.name, handle: person.org.handle, role: 'admin' },
      warehouses: [
        { warehouse_id: person.lake, name: 'lake', my_level: 'write', my_via: expect.any(String), level: 'write', granted: null, default: true },
        { warehouse_id: scratch.body.warehouse_id, name: 'scratch', my_level: 'write', my_via: expect.any(String), level: 'write', granted: null, default: false },
      ],
      existing: null,
      organizations: [{ org_id: person.org.org_id, name: person.org.name, handle: person.org.handle, role: 'admin' }],
      default_org_id: person.org.org_id,
    });
    expect(res.body.expires_in).toBeGreaterThan(890);
    expect(res.body.expires_in).toBeLessThanOrEqual(900);
    // Reading decides nothing.
    expect((await pending(person.access, id)).status).toBe(200);
    // A read-only request offers read.
    const read = await pending(person.access, await newRequest({ scope: 'catalogs:read' }));
    expect(read.body.warehouses.map((w: { level: string }) => w.level)).toEqual(['read', 'read']);
  });

  test('an API key: 403 session_required; a token: 403 forbidden; nothing: 401', async () => {
    const id = await newRequest();
    const signup = await gateway().post('/v1/signup').send({ email: `oak-${uniq()}${uniq()}@example.com`, workspace: `oak-${uniq()}`, accept_terms: true });
    expect(signup.status).toBe(201);
    expectError(await pending(signup.body.api_key, id), 403, 'session_required');
    const token = (await gateway().post('/v1/tokens').send({ api_key: signup.body.api_key })).body.access_token as string;
    expectError(await pending(token, id), 403, 'forbidden');
    expectError(await gateway().get('/v1/oauth/authorize/pending').query({ request_id: id }), 401, 'unauthorized');
  });

  test('unknown: 404; expired after 15 minutes: 410 oauth_request_expired; decided: 410 oauth_request_decided; no id: 400', async () => {
    expectError(await pending(person.access, 'oar_00000000000000000000000000000000'), 404, 'oauth_request_not_found');
    const expired = await newRequest();
    await sql(`UPDATE oauth_requests SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
    expectError(await pending(person.access, expired), 410, 'oauth_request_expired');
    const decided = await newRequest();
    await sql(`UPDATE oauth_requests SET status = 'decided', decision = 'denied', decided_by = $2, decided_at = now() WHERE id = $1`, [decided, person.principalId]);
    expectError(await pending(person.access, decided), 410, 'oauth_request_decided');
    expectError(await gateway().get('/v1/oauth/authorize/pending').set(bearer(person.access)), 400, 'missing_field');
  });

  test('a person in two organisations names one: 409 org_required without org_id, then that one\'s catalogs', async () => {
    const two = await personWithSession();
    const other = await gateway().post('/v1/warehouses').set(bearer(person.access)).send({ project_id: person.project, name: `o_${uniq()}` });
    expect(other.status).toBe(201);
    await join(person.org, { principal_id: two.principalId, api_key: '', key_id: '', email: two.email }, 'member', { confined: false });
    const id = await newRequest();
    const refused = expectError(await pending(two.access, id), 409, 'org_required');
    expect(refused.available).toEqual(expect.arrayContaining([expect.objectContaining({ org_id: person.org.org_id })]));
    const chosen = await pending(two.access, id, person.org.org_id);
    expect(chosen.status).toBe(200);
    expect(chosen.body.organization).toMatchObject({ org_id: person.org.org_id, role: 'member' });
    expect(chosen.body.organizations.map((o: { org_id: string }) => o.org_id).sort()).toEqual([person.org.org_id, two.org.org_id].sort());
    expect(chosen.body.warehouses.map((w: { name: string }) => w.name)).toContain('lake');
  });
});
