import { expectError, gateway, stack } from './helpers';

describe('health and identity discovery (through the gateway)', () => {
  test('GET /healthz reports ok, catalog_ok (the catalog answers its config route), the issuer and a published kid', async () => {
    const res = await gateway().get('/healthz');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, catalog_ok: true, issuer: stack().base_url, kid: expect.any(String) });
    const jwks = await gateway().get('/jwks.json');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(res.body.kid);
  });

  test('the gateway answers its own liveness', async () => {
    const res = await gateway().get('/livez');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, service: 'gateway' });
  });

  test('every deployable answers a process-only /livez (what Kubernetes\' liveness probes ask)', async () => {
    const services = Object.entries(stack().services).filter(([name]) => name !== 'mail' && name !== 'identity-provider' && name !== 'gateway' && !/-\d+$/.test(name));
    expect(services.map(([name]) => name).sort()).toEqual(['catalog', 'control-plane', 'identity', 'ingest-gateway', 'maintenance-worker', 'mcp-server', 'metering-worker', 'query-worker', 'roller-worker', 'teardown-worker']);
    for (const [name, s] of services) {
      const res = await fetch(`${s.url}/livez`);
      expect([name, res.status, await res.json()]).toEqual([name, 200, { ok: true, service: name }]);
    }
  });

  test('GET /.well-known/openid-configuration names issuer, jwks_uri, token endpoint and grants', async () => {
    const base = stack().base_url;
    const res = await gateway().get('/.well-known/openid-configuration');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: base,
      jwks_uri: `${base}/jwks.json`,
      token_endpoint: `${base}/v1/tokens`,
      grant_types_supported: ['client_credentials'],
      id_token_signing_alg_values_supported: ['RS256'],
    });
  });

  test('GET /jwks.json and /.well-known/jwks.json serve the same RS256 keys with kid', async () => {
    const a = await gateway().get('/jwks.json');
    const b = await gateway().get('/.well-known/jwks.json');
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.body).toEqual(a.body);
    expect(a.body.keys.length).toBeGreaterThanOrEqual(1);
    for (const key of a.body.keys) {
      expect(Object.keys(key).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
      expect(key).toMatchObject({ kty: 'RSA', use: 'sig', alg: 'RS256' });
    }
  });

  test('GET /v1/auth/config tells what sign-in is served and which issuers are trusted', async () => {
    const res = await gateway().get('/v1/auth/config');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      issuer: stack().base_url, password_login: true, signup: true, signup_modes: ['email_code', 'password', 'one_call'], api_keys: true, mail_delivery: 'email',
      // The development identity provider the stack runs is both a trusted issuer and a sign-in provider.
      trusted_issuers: [{ issuer: stack().identity_provider_url, audiences: [stack().base_url] }],
      sign_in_providers: [{ id: 'dev', name: 'the development identity provider', issuer: stack().identity_provider_url, start_url: `${stack().base_url}/v1/auth/oidc/dev/start` }],
      device_authorization: true, device_authorization_url: `${stack().base_url}/v1/auth/device`, device_token_url: `${stack().base_url}/v1/auth/device/token`,
    });
    expect(res.body.note).toMatch(/device login: POST \/v1\/auth\/device/);
    expect(res.body.note).not.toMatch(/not served/);
    // What it names is served: a device login starts.
    const started = await gateway().post(res.body.device_authorization_url.slice(stack().base_url.length)).send({ client: 'cli' });
    expect(started.status).toBe(200);
    expect(started.body.user_code).toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    const signIn = await gateway().post(res.body.sign_in_providers[0].start_url.slice(stack().base_url.length)).send({});
    expect(signIn.status).toBe(200);
    expect(signIn.body.authorization_url).toMatch(new RegExp(`^${stack().identity_provider_url}/`));
  });

  test('GET /v1/config/formats lists versions 2 and 3 with machine-parseable engine strings', async () => {
    const res = await gateway().get('/v1/config/formats');
    expect(res.status).toBe(200);
    expect(res.body.default_format_version).toBe(2);
    expect(res.body.versions.map((v: { format_version: number }) => v.format_version)).toEqual([2, 3]);
    const grammar = /^[a-z][a-z0-9-]*(>=\d+(\.\d+)*(\+[a-z][a-z0-9-]*-\d+(\.\d+)*)?)?$/;
    for (const v of res.body.versions) {
      expect(v.default).toBe(v.format_version === 2);
      expect(v.writers.length).toBeGreaterThan(0);
      for (const s of [...v.writers, ...v.readers]) expect(s).toMatch(grammar);
      expect(typeof v.note).toBe('string');
    }
  });

  test('health and discovery need no credential, and a wrong one does not matter there', async () => {
    const res = await gateway().get('/jwks.json').set('Authorization', 'Bearer nonsense');
    expect(res.status).toBe(200);
  });

  test('a method a route does not answer is 405 with Allow, in the envelope', async () => {
    const res = await gateway().delete('/v1/tokens');
    const err = expectError(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('POST');
    expect(err.allowed).toEqual(['POST']);
  });
});
