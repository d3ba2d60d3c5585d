import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { join } from './control-plane-helpers';
import { bearer, gateway, sql, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { requestFrom } from '../support/from-address';
import { authorizeFrom, consentRequest, mcpUrl, newCatalogOf, personWithSession, serveDocuments, SESSION_PASSWORD, valid, type Served } from '../support/oauth';

// The OAuth consent page, /app/authorize, in headless Chromium: an
// application's authorization request lands the person here; signed out,
// they sign in on the way and come back; they read who asks for what, choose
// the catalogs and levels, and allow or deny; the browser then goes back to
// the application's redirect URI (a loopback callback server of this file),
// and an allowed code exchanged at POST /oauth/token gives a token whose
// record holds exactly what was chosen. Authorization requests and token
// exchanges come from this file's own loopback address (budgeted per
// address); client documents from 127.0.0.77, the host the e2e stack lets
// past the metadata guard. Screenshots under .data/artifacts/pages-authorize.

const MINE = '127.0.0.65';
const VERIFIER = 'the-consent-page-test-verifier-long-enough-for-pkce_0123456789';
const CHALLENGE = createHash('sha256').update(VERIFIER).digest('base64url');
const LOGO = 'https://tool.example.com/logo.png';
/** A 1×1 transparent PNG: the client's logo, served in place of the network. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

const browser = chromiumForFile();
const shot = screenshots('pages-authorize');

let docs: Served;
let callback: { server: http.Server; url: string };
let person: Awaited<ReturnType<typeof personWithSession>>;
let scratch: string;
let extra: string;

const clientId = (name: string) => `${docs.base}/${name}.json`;
/** A consent request of this client, sent back to this file's callback server. */
const newRequest = async (client: string) => consentRequest(await authorizeFrom(MINE, valid(client, { redirect_uri: callback.url, code_challenge: CHALLENGE })));
const consentUrl = (id: string) => `${stack().base_url}/app/authorize?request=${id}`;
const decide = (body: unknown) => gateway().post('/v1/oauth/authorize/decision').set(bearer(person.access)).send(body as object);

beforeAll(async () => {
  docs = await serveDocuments('127.0.0.77', () => docs.base);
  // The application's redirect URI: a loopback callback (the documents list http://127.0.0.1/callback, any port).
  const server = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/plain' }).end('back at the application'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  callback = { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback` };
  person = await personWithSession();
  scratch = await newCatalogOf(person, 'scratch');
  extra = await newCatalogOf(person, 'extra');
}, 90_000);
afterAll(async () => {
  await new Promise((r) => docs.server.close(r));
  await new Promise((r) => callback.server.close(r));
});

/** A new page whose requests for the client's logo are answered here (no network). */
async function newPage(): Promise<Page> {
  const page = await browser().newPage();
  await page.route(LOGO, (route) => route.fulfill({ status: 200, contentType: 'image/png', body: PIXEL }));
  return page;
}

/** The consent page opened signed out: sent to sign in, then back to the same address. */
async function signInOnTheWay(page: Page, id: string, name?: string, email = person.email): Promise<void> {
  await page.goto(consentUrl(id));
  await page.waitForURL(/\/app\/login\?return_to=/);
  expect(new URL(page.url()).searchParams.get('return_to')).toBe(`/app/authorize?request=${id}`);
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(SESSION_PASSWORD);
  if (name) await shot(page, name);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(consentUrl(id));
}

/** The parameters the browser brought back to the application. */
function backAtClient(page: Page): Record<string, string> {
  const u = new URL(page.url());
  expect(`${u.origin}${u.pathname}`).toBe(callback.url);
  return Object.fromEntries(u.searchParams);
}

test('signed out: sign in on the way; the client, its host and what it asks; untick one catalog, lower another, allow; the code gives a token holding exactly that', async () => {
  // The person allowed this application before (lake write, scratch write, extra read): allowing again replaces that.
  const client = clientId('client-pages');
  const first = await decide({
    request_id: await newRequest(client), allow: true,
    grants: [{ warehouse_id: person.lake, level: 'write' }, { warehouse_id: scratch, level: 'write' }, { warehouse_id: extra, level: 'read' }],
  });
  expect(first.status).toBe(200);
  const agentId = first.body.token.agent_id as string;

  const id = await newRequest(client);
  const page = await newPage();
  await signInOnTheWay(page, id, '1-sign-in');

  // Who asks, from where, where the person goes back to, and what it asks for in words.
  await page.getByRole('heading', { name: 'Test Tool' }).waitFor();
  expect(await page.locator('#client-host').textContent()).toBe(`from ${new URL(client).host}`);
  expect(await page.locator('#client-logo').getAttribute('src')).toBe(LOGO);
  expect(await page.locator('#client-logo').isVisible()).toBe(true);
  expect(await page.locator('#redirect-host').textContent()).toBe(`After you answer, you go back to ${new URL(callback.url).host}.`);
  expect(await page.locator('#scopes li').allTextContents()).toEqual([
    'See your catalogs, their namespaces and tables, table schemas, snapshots and usage',
    'Create tables and send rows into your catalogs (within the levels you give)',
  ]);
  expect(await page.locator('#org-name').textContent()).toBe(`It works in ${person.org.name} (${person.org.handle}) as you, ${person.email}.`);
  expect(await page.locator('#org-choice').isVisible()).toBe(false);
  // The record it holds now, and a note that allowing replaces its grants; what it holds is ticked.
  expect(await page.locator('#existing').textContent())
    .toBe(`You allowed this application before: its token “${first.body.token.name}” holds write on lake, write on scratch, read on extra. Allowing replaces those grants with the ones you choose here.`);
  const holds = Object.fromEntries(await page.locator('#catalogs tr').evaluateAll((rows) => rows.map((r) => [r.querySelector('label')!.textContent, (r as HTMLTableRowElement).cells[2].textContent])));
  expect(holds).toEqual({ lake: 'write', scratch: 'write', extra: 'read' });
  for (const name of ['lake', 'scratch', 'extra']) expect(await page.getByLabel(name, { exact: true }).isChecked()).toBe(true);
  expect(await page.getByLabel('Level on lake', { exact: true }).inputValue()).toBe('write');
  expect(await page.getByLabel('Level on lake', { exact: true }).locator('option').allTextContents()).toEqual(['read', 'write']);
  // A catalog it holds is offered at the level it holds, not raised to the one asked.
  expect(await page.getByLabel('Level on extra', { exact: true }).inputValue()).toBe('read');
  await shot(page, '2-asked');

  // Untick scratch, lower lake to read, allow: back at the application with code, state and iss.
  await page.getByLabel('scratch', { exact: true }).uncheck();
  await page.getByLabel('Level on lake', { exact: true }).selectOption('read');
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.url));
  const back = backAtClient(page);
  expect(back).toEqual({ code: expect.stringMatching(/^oac_[A-Za-z0-9_-]{43}$/), state: 'st-123', iss: stack().base_url });
  await shot(page, '3-back-at-client');

  // The code exchanged: a token of the same record, which holds exactly what was chosen.
  const token = await requestFrom(MINE, `${stack().base_url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code: back.code, code_verifier: VERIFIER, client_id: client, redirect_uri: callback.url, resource: mcpUrl() }).toString(),
  });
  expect(token.status).toBe(200);
  expect(decodeJwt(token.body.access_token)).toMatchObject({ sub: agentId, act: { sub: person.principalId }, client_id: client, kind: 'mcp' });
  const detail = await gateway().get(`/v1/orgs/${person.org.org_id}/agents/${agentId}`).set(bearer(person.access));
  expect(detail.status).toBe(200);
  expect(detail.body.grants).toEqual(expect.arrayContaining([{ warehouse_id: person.lake, name: 'lake', level: 'read' }, { warehouse_id: extra, name: 'extra', level: 'read' }]));
  expect(detail.body.grants).toHaveLength(2);
  await page.close();
}, 90_000);

test('a fresh client, read only: only the default catalog ticked, read offered; deny goes back with access_denied', async () => {
  const client = clientId('client-pages-deny');
  const id = consentRequest(await authorizeFrom(MINE, valid(client, { redirect_uri: callback.url, code_challenge: CHALLENGE, scope: 'catalogs:read' })));
  const page = await newPage();
  await signInOnTheWay(page, id);
  await page.getByRole('heading', { name: 'Test Tool' }).waitFor();
  expect(await page.locator('#existing').isVisible()).toBe(false);
  expect(await page.locator('#scopes li').allTextContents()).toEqual(['See your catalogs, their namespaces and tables, table schemas, snapshots and usage']);
  expect(await page.getByLabel('lake', { exact: true }).isChecked()).toBe(true);
  expect(await page.getByLabel('scratch', { exact: true }).isChecked()).toBe(false);
  // A read-only request: write is not offered even to an admin.
  expect(await page.getByLabel('Level on lake', { exact: true }).locator('option').allTextContents()).toEqual(['read']);
  await shot(page, '4-read-only');

  await page.getByRole('button', { name: 'Deny' }).click();
  await page.waitForURL((u) => u.href.startsWith(callback.url));
  expect(backAtClient(page)).toEqual({ error: 'access_denied', error_description: expect.any(String), state: 'st-123', iss: stack().base_url });
  expect((await sql(`SELECT status, decision FROM oauth_requests WHERE id = $1`, [id]))[0]).toEqual({ status: 'decided', decision: 'denied' });
  await page.close();
}, 90_000);

test('a person in two organisations chooses one first, and can switch on the consent form; the catalogs follow', async () => {
  const two = await personWithSession();
  await join(person.org, { principal_id: two.principalId, api_key: '', key_id: '', email: two.email }, 'member', { confined: false });
  const id = await newRequest(clientId('client-pages-orgs'));
  const page = await newPage();
  await signInOnTheWay(page, id, undefined, two.email);
  // No organisation named: the chooser first.
  const pick = page.getByLabel('Organisation the application works in');
  await pick.waitFor();
  expect((await pick.locator('option').allTextContents()).sort()).toEqual([person.org.name, two.org.name].sort());
  await pick.selectOption(person.org.org_id);
  await page.getByRole('button', { name: 'Continue' }).click();
  await page.waitForURL(`${consentUrl(id)}&org_id=${person.org.org_id}`);
  await page.getByRole('heading', { name: 'Test Tool' }).waitFor();
  expect(await page.locator('#org-name').textContent()).toBe(`It works in ${person.org.name} (${person.org.handle}) as you, ${two.email}.`);
  expect(await page.getByLabel('extra', { exact: true }).count()).toBe(1);
  await shot(page, '7-two-organisations');
  // The chooser on the form reloads the request in the other organisation: its own catalogs.
  await page.getByLabel('Organisation', { exact: true }).selectOption(two.org.org_id);
  await page.waitForURL(`${consentUrl(id)}&org_id=${two.org.org_id}`);
  await page.locator('#org-name').filter({ hasText: `It works in ${two.org.name}` }).waitFor();
  expect(await page.locator('#catalogs label').allTextContents()).toEqual(['lake']);
  await page.close();
}, 90_000);

test('an expired, a decided and an unknown request: each shows its message and nothing to decide', async () => {
  const page = await newPage();
  const expired = await newRequest(clientId('client-pages-gone'));
  await sql(`UPDATE oauth_requests SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired]);
  await signInOnTheWay(page, expired);
  await page.locator('#problem').filter({ hasText: 'This request has expired (an application has 15 minutes). Go back to the application and connect again.' }).waitFor();
  expect(await page.locator('#decide').isVisible()).toBe(false);
  await shot(page, '5-expired');

  const decided = await newRequest(clientId('client-pages-gone'));
  expect((await decide({ request_id: decided, allow: false })).status).toBe(200);
  await page.goto(consentUrl(decided));
  await page.locator('#problem').filter({ hasText: 'This request has been answered already.' }).waitFor();
  expect(await page.locator('#decide').isVisible()).toBe(false);

  await page.goto(consentUrl('oar_00000000000000000000000000000000'));
  await page.locator('#problem').filter({ hasText: 'There is no such request.' }).waitFor();

  // Decided in another tab while this one was open: the allow shows the refusal in words.
  const raced = await newRequest(clientId('client-pages-gone'));
  await page.goto(consentUrl(raced));
  await page.getByRole('button', { name: 'Allow' }).waitFor();
  expect((await decide({ request_id: raced, allow: false })).status).toBe(200);
  await page.getByRole('button', { name: 'Allow' }).click();
  await page.locator('#decide [role="alert"]').filter({ hasText: 'This request has been answered already.' }).waitFor();
  await shot(page, '6-decided-meanwhile');
  await page.close();
}, 90_000);

test('the page is served like the others, its policy letting only https images in besides its own', async () => {
  const res = await gateway().get('/app/authorize');
  expect(res.status).toBe(200);
  expect(res.headers['content-security-policy']).toBe("default-src 'self'; style-src 'self'; img-src 'self' data: https:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'");
  expect(res.text).not.toMatch(/<script>|<script [^>]*>[^<]/);
  expect((await gateway().get('/app/device')).headers['content-security-policy']).toMatch(/img-src 'self' data:;/);
  for (const file of ['/app/authorize.js', '/app/authorize.css']) expect((await gateway().get(file)).status).toBe(200);
});
