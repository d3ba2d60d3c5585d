import { randomBytes } from 'node:crypto';
import { ConfigError, RESERVED_WORDS, loadConfig } from './index';

describe('loadConfig', () => {
  test('defaults make one machine work and derive every public URL from host and ports', () => {
    const c = loadConfig({});
    expect(c.baseUrl).toBe('http://127.0.0.1:8080');
    expect(c.catalogUrl).toBe('http://127.0.0.1:8181');
    expect(c.s3Url).toBe('http://127.0.0.1:7480');
    expect(c.ingestUrl).toBe('http://127.0.0.1:8083');
    expect(c.services).toEqual({ identity: 'http://127.0.0.1:8081', controlPlane: 'http://127.0.0.1:8082', catalog: 'http://127.0.0.1:8181', ingest: 'http://127.0.0.1:8083', ingestInternal: 'http://127.0.0.1:8085', mcp: 'http://127.0.0.1:8084' });
    expect(c.ports.mcp).toBe(8084);
    expect(c.oauth.mcpUrl).toBe('http://127.0.0.1:8080/mcp');
    expect(c.openSignup).toBe(true);
    expect(loadConfig({ FLOE_ENV: 'production' }).openSignup).toBe(false);
    expect(c.bodyLimitBytes).toBe(1_000_000);
    expect(c.listenHost).toBe('127.0.0.1');
    expect(c.trustProxy).toEqual([]);
    expect(c.adminRoutesPublic).toBe(false);
    expect(loadConfig({ FLOE_ADMIN_ROUTES_PUBLIC: 'true' }).adminRoutesPublic).toBe(true);
    expect(() => loadConfig({ FLOE_ADMIN_ROUTES_PUBLIC: 'yes' })).toThrow(/FLOE_ADMIN_ROUTES_PUBLIC/);
  });

  test('FLOE_TRUST_PROXY: a list of addresses or CIDRs, none by default; "true" and hop counts are refused', () => {
    expect(loadConfig({ FLOE_TRUST_PROXY: 'false' }).trustProxy).toEqual([]);
    expect(loadConfig({ FLOE_TRUST_PROXY: ' 10.0.0.0/8, 2001:db8::/32 ,192.0.2.7,' }).trustProxy).toEqual(['10.0.0.0/8', '2001:db8::/32', '192.0.2.7']);
    expect(() => loadConfig({ FLOE_TRUST_PROXY: 'true' })).toThrow(/FLOE_TRUST_PROXY/);
    expect(() => loadConfig({ FLOE_TRUST_PROXY: '1' })).toThrow(/FLOE_TRUST_PROXY/);
  });

  test('explicit URLs win and lose their trailing slash; ports move derived URLs', () => {
    const c = loadConfig({ FLOE_BASE_URL: 'https://api.example.com/', FLOE_CATALOG_URL: 'https://catalog.example.com//', FLOE_IDENTITY_PORT: '9001', FLOE_TRUSTED_ISSUERS: 'https://a.example, https://b.example' });
    expect(c.baseUrl).toBe('https://api.example.com');
    expect(c.catalogUrl).toBe('https://catalog.example.com');
    expect(c.oauth.mcpUrl).toBe('https://api.example.com/mcp');
    expect(c.services.identity).toBe('http://127.0.0.1:9001');
    expect(c.trustedIssuers).toEqual([
      { issuer: 'https://a.example', audiences: ['https://api.example.com'] },
      { issuer: 'https://b.example', audiences: ['https://api.example.com'] },
      { issuer: 'http://127.0.0.1:1090', audiences: ['https://api.example.com'] },
    ]);
  });

  test('passkeys: the base URL\'s host and origin by default; a loopback base URL signs them at localhost; settings override', () => {
    expect(loadConfig({ FLOE_BASE_URL: 'https://api.example.com', FLOE_CATALOG_URL: 'https://catalog.example.com' }).webauthn)
      .toEqual({ rpId: 'api.example.com', rpName: 'Floe', origins: ['https://api.example.com'], passkeyLogin: true });
    expect(loadConfig({}).webauthn).toEqual({ rpId: 'localhost', rpName: 'Floe', origins: ['http://localhost:8080'], passkeyLogin: true });
    expect(loadConfig({ FLOE_WEBAUTHN_RP_ID: 'example.com', FLOE_WEBAUTHN_ORIGINS: 'https://a.example.com/, https://b.example.com', FLOE_PASSKEY_LOGIN: 'false' }).webauthn)
      .toEqual({ rpId: 'example.com', rpName: 'Floe', origins: ['https://a.example.com', 'https://b.example.com'], passkeyLogin: false });
  });

  test('outside identities: the development provider signs in and is trusted on local stacks; FLOE_SIGNIN_PROVIDERS adds others; production runs none by default', () => {
    const local = loadConfig({});
    expect(local.devIdentityProvider).toEqual({
      issuer: 'http://127.0.0.1:1090', port: 1090, signIn: { clientId: 'floe-dev-sign-in', clientSecret: 'floe-development-client-secret' },
      redirectUris: ['http://127.0.0.1:8080/app/login', 'http://localhost:8080/app/login'],
    });
    expect(local.signIn.origins).toEqual(['http://127.0.0.1:8080', 'http://localhost:8080']);
    expect(local.signIn.providers.map((p) => p.id)).toEqual(['dev']);
    expect(local.trustedIssuers).toEqual([{ issuer: 'http://127.0.0.1:1090', audiences: ['http://127.0.0.1:8080'] }]);
    const google = { id: 'google', name: 'Google', issuer: 'https://accounts.google.com', client_id: 'c', client_secret: 's' };
    const prod = loadConfig({
      FLOE_ENV: 'production', FLOE_BASE_URL: 'https://api.example.com', FLOE_CATALOG_URL: 'https://catalog.example.com',
      FLOE_SIGNIN_PROVIDERS: JSON.stringify([google]), FLOE_TRUSTED_ISSUERS: 'https://idp.example.com, https://tenant.auth0.com/', FLOE_TRUSTED_AUDIENCES: 'floe-api, https://api.example.com',
    });
    expect(prod.devIdentityProvider).toBeNull();
    expect(prod.signIn.providers).toEqual([{ id: 'google', name: 'Google', issuer: 'https://accounts.google.com', clientId: 'c', clientSecret: 's' }]);
    // Issuers as written, a trailing slash kept: tokens' `iss` must equal them exactly.
    expect(prod.trustedIssuers).toEqual([
      { issuer: 'https://idp.example.com', audiences: ['floe-api', 'https://api.example.com'] },
      { issuer: 'https://tenant.auth0.com/', audiences: ['floe-api', 'https://api.example.com'] },
    ]);
    expect(() => loadConfig({ FLOE_SIGNIN_PROVIDERS: '{' })).toThrow(/FLOE_SIGNIN_PROVIDERS: not JSON/);
    expect(() => loadConfig({ FLOE_SIGNIN_PROVIDERS: JSON.stringify([google, google]) })).toThrow(/two providers with one id/);
    expect(() => loadConfig({ FLOE_SIGNIN_PROVIDERS: JSON.stringify([{ ...google, id: 'Google!' }]) })).toThrow(/FLOE_SIGNIN_PROVIDERS: 0.id/);
  });

  test('public addresses that contradict each other stop the start, naming both variables', () => {
    // The usual slip: FLOE_BASE_URL set, FLOE_CATALOG_URL left to its local default.
    expect(() => loadConfig({ FLOE_BASE_URL: 'https://floe.example.com' }))
      .toThrow(/FLOE_CATALOG_URL and FLOE_BASE_URL: the catalog's address http:\/\/127\.0\.0\.1:8181 \(unset, so derived from FLOE_HOST and FLOE_CATALOG_PORT\) is on this machine only/);
    expect(() => loadConfig({ FLOE_BASE_URL: 'https://floe.example.com', FLOE_CATALOG_URL: 'https://floe.example.com/' })).toThrow(ConfigError);
    expect(() => loadConfig({ FLOE_BASE_URL: 'https://floe.example.com', FLOE_CATALOG_URL: 'http://catalog.floe.example.com' })).toThrow(/FLOE_CATALOG_URL and FLOE_BASE_URL/);
    expect(() => loadConfig({ FLOE_CATALOG_URL: 'ftp://127.0.0.1:8181' })).toThrow(/FLOE_CATALOG_URL: /);
    // The host alone moves both derived addresses, which agree.
    expect(loadConfig({ FLOE_HOST: 'floe.internal' }).catalogUrl).toBe('http://floe.internal:8181');
  });

  test('a service URL may list replicas: the gateway gets every one, a service calling another the first', () => {
    const c = loadConfig({ FLOE_IDENTITY_URL: 'http://10.0.0.1:1/, http://10.0.0.2:2', FLOE_CONTROL_PLANE_URL: 'http://10.0.0.3:3' });
    expect(c.upstreams.identity).toEqual(['http://10.0.0.1:1', 'http://10.0.0.2:2']);
    expect(c.services.identity).toBe('http://10.0.0.1:1');
    expect(c.upstreams.controlPlane).toEqual(['http://10.0.0.3:3']);
    expect(c.upstreams.mcp).toEqual(['http://127.0.0.1:8084']);
    expect(() => loadConfig({ FLOE_IDENTITY_URL: 'http://10.0.0.1:1,not a url' })).toThrow(/FLOE_IDENTITY_URL/);
  });

  test('a bad environment fails loudly, naming the variable', () => {
    expect(() => loadConfig({ FLOE_GATEWAY_PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ FLOE_BASE_URL: 'not a url' })).toThrow(/FLOE_BASE_URL/);
    expect(() => loadConfig({ FLOE_BOOTSTRAP_SECRET: 'short' })).toThrow(/FLOE_BOOTSTRAP_SECRET/);
  });

  test('FLOE_DATA_KEYS: ids and 32-byte keys, the sealing key first; a bad entry fails naming the variable, never the key', () => {
    expect(loadConfig({}).dataKeys).toEqual([]);
    const a = randomBytes(32);
    const b = randomBytes(32);
    const c = loadConfig({ FLOE_DATA_KEYS: `k2:${a.toString('base64')}, k1:${b.toString('base64url')}` });
    expect(c.dataKeys).toEqual([{ id: 'k2', key: a }, { id: 'k1', key: b }]);
    const short = randomBytes(16).toString('base64');
    for (const bad of [`k1:${short}`, `${a.toString('base64')}`, `k 1:${a.toString('base64')}`, `k1:${a.toString('hex')}`, `k1:${a.toString('base64')},k1:${b.toString('base64')}`]) {
      let message = '';
      try {
        loadConfig({ FLOE_DATA_KEYS: bad });
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        message = (err as Error).message;
      }
      expect(message).toMatch(/FLOE_DATA_KEYS/);
      expect(message).not.toContain(short);
      expect(message).not.toContain(a.toString('base64'));
    }
  });

  test('FLOE_DNS_SERVERS: addresses with optional ports, the system\'s resolvers when unset; a name or bad port fails naming the variable', () => {
    expect(loadConfig({}).dnsServers).toEqual([]);
    expect(loadConfig({ FLOE_DNS_SERVERS: '127.0.0.1:5353, 10.0.0.2,::1,[2001:db8::53]:53' }).dnsServers).toEqual(['127.0.0.1:5353', '10.0.0.2', '::1', '[2001:db8::53]:53']);
    for (const bad of ['dns.example', '127.0.0.1:0', '127.0.0.1:70000', '1.2.3', '[127.0.0.1]:53', '::1:53x']) {
      expect(() => loadConfig({ FLOE_DNS_SERVERS: bad })).toThrow(/FLOE_DNS_SERVERS/);
    }
  });

  test('the brand word is reserved beside the spec\'s reserved words', () => {
    const c = loadConfig({});
    expect(RESERVED_WORDS).toContain(c.brandWord);
    for (const w of ['app', 'api', 'docs', 'legal', 'admin', 'www', 's3', 'catalog', 'auth']) expect(RESERVED_WORDS).toContain(w);
  });
});
