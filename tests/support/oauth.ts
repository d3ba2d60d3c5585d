import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { bearer, gateway, stack } from '../e2e/helpers';
import { requestFrom, type AddressedAnswer } from './from-address';
import { personWithPassword } from './people';

// The OAuth authorization server's e2e setup, shared by the files that walk
// its flow: client metadata documents served from a loopback host (127.0.0.77
// is the one the e2e stack lets past the guard), authorization requests from
// a caller address of the file's own, the consent request they make, and a
// person with a login session.

export const CHALLENGE = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';
export const SESSION_PASSWORD = 'an oauth consent passphrase 7';

export interface Served { base: string; hits: Map<string, number>; server: http.Server }

/** A metadata server on `host`: self-naming documents and every broken kind the guard must refuse. */
export function serveDocuments(host: string, otherHost: () => string): Promise<Served> {
  const hits = new Map<string, number>();
  const served: Served = { base: '', hits, server: http.createServer() };
  served.server.on('request', (req, res) => {
    const path = req.url ?? '/';
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const self = `${served.base}${path}`;
    const doc = (extra: Record<string, unknown> = {}) => JSON.stringify({
      client_id: self, client_name: 'Test Tool', client_uri: 'https://tool.example.com', logo_uri: 'https://tool.example.com/logo.png',
      redirect_uris: ['http://127.0.0.1/callback', 'https://tool.example.com/cb'], token_endpoint_auth_method: 'none', ...extra,
    });
    const json = (body: string) => res.writeHead(200, { 'Content-Type': 'application/json' }).end(body);
    if (path.startsWith('/client')) return json(doc());
    if (path === '/names-another.json') return json(doc({ client_id: `${served.base}/client.json` }));
    if (path === '/not-json') return res.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>hello</html>');
    if (path === '/big.json') return json(doc({ padding: 'x'.repeat(65 * 1024) }));
    if (path === '/bad-redirect-uri.json') return json(doc({ redirect_uris: ['http://tool.example.com/cb'] }));
    if (path === '/redirect-away.json') return res.writeHead(302, { Location: `${otherHost()}/client.json` }).end();
    if (path === '/redirect-same.json') return res.writeHead(302, { Location: '/client-moved.json' }).end();
    res.writeHead(404).end();
  });
  return new Promise((resolve) => served.server.listen(0, host, () => {
    served.base = `http://${host}:${(served.server.address() as AddressInfo).port}`;
    resolve(served);
  }));
}

/** GET /oauth/authorize from `from` with these parameters (undefined left out). */
export function authorizeFrom(from: string, params: Record<string, string | string[] | undefined>): Promise<AddressedAnswer> {
  const u = new URL('/oauth/authorize', stack().base_url);
  for (const [k, v] of Object.entries(params)) for (const one of v === undefined ? [] : [v].flat()) u.searchParams.append(k, one);
  return requestFrom(from, u.href);
}

export const mcpUrl = () => `${stack().base_url}/mcp`;
export const valid = (clientId: string, extra: Record<string, string | string[] | undefined> = {}) => ({
  client_id: clientId, redirect_uri: 'http://127.0.0.1:50123/callback', response_type: 'code', code_challenge: CHALLENGE,
  code_challenge_method: 'S256', resource: mcpUrl(), scope: 'catalogs:read catalogs:write', state: 'st-123', ...extra,
});

/** The flat OAuth form and nothing else, with its status. */
export function flat(res: AddressedAnswer, status: number, error: string): string {
  expect([res.status, res.body]).toEqual([status, { error, error_description: expect.any(String) }]);
  return res.body.error_description;
}

/** A refusal sent back to the client: 302 to its redirect URI with error, description, state and iss. */
export function redirectedError(res: AddressedAnswer, error: string, redirect = 'http://127.0.0.1:50123/callback'): URL {
  expect(res.status).toBe(302);
  const to = new URL(res.headers.location!);
  expect(`${to.origin}${to.pathname}`).toBe(redirect);
  expect(Object.fromEntries(to.searchParams)).toEqual({ error, error_description: expect.any(String), state: 'st-123', iss: stack().base_url });
  return to;
}

/** A consent request made: 302 to the consent page; its id. */
export function consentRequest(res: AddressedAnswer): string {
  expect([res.status, res.headers.location]).toEqual([302, expect.stringMatching(new RegExp(`^${stack().base_url}/app/authorize\\?request=oar_[0-9a-f]{32}$`))]);
  return new URL(res.headers.location!).searchParams.get('request')!;
}

/** A further catalog of the person's project, made with their session: its id. */
export async function newCatalogOf(p: { access: string; project: string }, name: string): Promise<string> {
  const w = await gateway().post('/v1/warehouses').set(bearer(p.access)).send({ project_id: p.project, name });
  expect(w.status).toBe(201);
  return w.body.warehouse_id;
}

/** A person with a password (SESSION_PASSWORD) and a login session: admin of an organisation with `lake`. */
export const personWithSession = () => personWithPassword('oa', SESSION_PASSWORD);


/**
 * A person's browser follows an authorization URL to the consent page
 * (signing in with SESSION_PASSWORD if the page asks), sees `client`, allows
 * `lake` at read only, and is sent back to `redirectUri`: the URL it lands on.
 * `look` runs on the consent page before Allow (assertions, a screenshot).
 */
export async function allowLakeReadInBrowser(
  page: Page, authorizationUrl: string, o: { email: string; client: string; redirectUri: string; look?: (page: Page) => Promise<void> },
): Promise<URL> {
  await page.goto(authorizationUrl);
  await page.waitForURL(/\/app\/(login|authorize)\?/);
  if (new URL(page.url()).pathname === '/app/login') {
    await page.getByLabel('Email address').fill(o.email);
    await page.getByLabel('Password').fill(SESSION_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(/\/app\/authorize\?request=/);
  }
  await page.getByRole('heading', { name: o.client }).waitFor();
  expect(await page.getByLabel('lake', { exact: true }).isChecked()).toBe(true);
  await page.getByLabel('Level on lake', { exact: true }).selectOption('read');
  await o.look?.(page);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(o.redirectUri));
  return new URL(page.url());
}
