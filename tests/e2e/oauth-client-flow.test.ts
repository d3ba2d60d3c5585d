import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import type { BrowserContext } from 'playwright-core';
import { bearer, expectError, gateway, sql, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { allowLakeReadInBrowser, mcpUrl, personWithSession, serveDocuments, type Served } from '../support/oauth';

// The whole OAuth flow as a tool host runs it, with a real OAuth client
// (openid-client, which is oauth4webapi underneath): discovery from the RFC
// 8414 document, an authorization request with PKCE S256 and `resource`,
// consent in headless Chromium on /app/authorize (signing in on the way),
// the code exchange (iss checked), a refresh, a reuse of the rotated-out
// refresh token revoking the family, a second use of a code revoking what the
// first produced, and revocation. Screenshots under
// .data/artifacts/oauth-client-flow.

const browser = chromiumForFile();
const shot = screenshots('oauth-client-flow');
let context: BrowserContext | undefined;

let docs: Served;
let callback: http.Server;
let redirectUri: string;
let person: Awaited<ReturnType<typeof personWithSession>>;
const clientId = () => `${docs.base}/client-flow.json`;

beforeAll(async () => {
  docs = await serveDocuments('127.0.0.77', () => docs.base);
  // The client's redirect: a loopback listener (any port is the document's http://127.0.0.1/callback).
  callback = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('done'));
  await new Promise<void>((r) => callback.listen(0, '127.0.0.1', r));
  redirectUri = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/callback`;
  person = await personWithSession();
}, 90_000);
afterAll(async () => {
  await context?.close();
  await Promise.all([docs, { server: callback }].map((s) => new Promise((r) => s.server.close(r))));
});

/** Discovery as a client does it: the authorization server's metadata from the issuer ({base_url}; plain http only on this test stack). */
async function discover(): Promise<oidc.Configuration> {
  return oidc.discovery(new URL(stack().base_url), clientId(), undefined, oidc.None(), { algorithm: 'oauth2', execute: [oidc.allowInsecureRequests] });
}

/** An authorization request with PKCE, consented by the person (lake at read): the URL the browser lands on with the code, and the verifier. */
async function authorize(config: oidc.Configuration) {
  const verifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'catalogs:read catalogs:write', code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256', state, resource: mcpUrl(),
  });
  const landed = await consent(url);
  return { landed, verifier, state };
}

/**
 * The person's browser follows the authorization URL: the consent page
 * (signing in the first time), where only `lake` is chosen, at read; the
 * redirect URI the browser is sent back to.
 */
async function consent(url: URL): Promise<URL> {
  context ??= await browser().newContext();
  const page = await context.newPage();
  const landed = await allowLakeReadInBrowser(page, url.href, { email: person.email, client: 'Test Tool', redirectUri, look: (p) => shot(p, 'consent').then(() => undefined) });
  await page.close();
  return landed;
}

async function exchange(config: oidc.Configuration, a: Awaited<ReturnType<typeof authorize>>) {
  return oidc.authorizationCodeGrant(config, a.landed, { pkceCodeVerifier: a.verifier, expectedState: a.state }, { resource: mcpUrl() });
}

/** The OAuth error a refusal carried (openid-client throws ResponseBodyError with the flat body). */
async function refusal(p: Promise<unknown>): Promise<{ status: number; error: string }> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(oidc.ResponseBodyError);
  const e = err as oidc.ResponseBodyError;
  return { status: e.status, error: e.error };
}

test('discovery, PKCE, consent, code exchange, refresh, a reused refresh token revoking the family, revocation', async () => {
  const config = await discover();
  expect(config.serverMetadata()).toMatchObject({ issuer: stack().base_url, token_endpoint: `${stack().base_url}/oauth/token`, code_challenge_methods_supported: ['S256'] });

  const a = await authorize(config);
  expect(a.landed.searchParams.get('iss')).toBe(stack().base_url);
  const tokens = await exchange(config, a);
  expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 900, scope: 'catalogs:read catalogs:write', refresh_token: expect.stringMatching(/^ort_/) });
  const seen = await gateway().get('/v1/warehouses').set(bearer(tokens.access_token));
  expect(seen.body.warehouses.map((w: any) => [w.warehouse_id, w.my_level])).toEqual([[person.lake, 'read']]);

  // A refresh: a new pair; the access token works.
  const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
  expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
  expect((await gateway().get('/v1/warehouses').set(bearer(refreshed.access_token))).status).toBe(200);

  // The rotated-out refresh token comes back later: the family is revoked, the newest pair with it.
  await sql(`UPDATE oauth_grants SET rotated_at = now() - interval '1 minute' WHERE id = $1`, [tokens.refresh_token!.split('_').slice(1, 3).join('_')]);
  expect(await refusal(oidc.refreshTokenGrant(config, tokens.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  expect(await refusal(oidc.refreshTokenGrant(config, refreshed.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  expectError(await gateway().get('/v1/warehouses').set(bearer(refreshed.access_token)), 401, 'unauthorized');

  // Revocation (RFC 7009) of a fresh authorization's refresh token.
  const b = await exchange(config, await authorize(config));
  await oidc.tokenRevocation(config, b.refresh_token!);
  expect(await refusal(oidc.refreshTokenGrant(config, b.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
  expectError(await gateway().get('/v1/warehouses').set(bearer(b.access_token)), 401, 'unauthorized');
}, 60_000);

test('a second use of a code: refused, and what the first use produced is revoked', async () => {
  const config = await discover();
  const a = await authorize(config);
  const first = await exchange(config, a);
  expect((await gateway().get('/v1/warehouses').set(bearer(first.access_token))).status).toBe(200);
  expect(await refusal(exchange(config, a))).toEqual({ status: 400, error: 'invalid_grant' });
  expectError(await gateway().get('/v1/warehouses').set(bearer(first.access_token)), 401, 'unauthorized');
  expect(await refusal(oidc.refreshTokenGrant(config, first.refresh_token!))).toEqual({ status: 400, error: 'invalid_grant' });
}, 60_000);
