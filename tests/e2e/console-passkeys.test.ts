// Passkeys in Chromium with its virtual authenticator (the DevTools
// protocol's WebAuthn domain through playwright-core): add one on the
// account page, sign in with it alone, use it as the login's second step and
// to confirm a stale session, delete it. The refusals the API gives a
// browser's answer: a credential registered twice, registrations past the
// limit racing each other, a page of another origin, an answer to no
// ceremony, another person's ceremony.
//
// A relying party id cannot be an IP address: the stack's pages on
// 127.0.0.1 make and use passkeys at http://localhost:<port> (the
// deployment's default for a loopback base URL, GET /v1/auth/config).
import type { CDPSession, Page } from 'playwright-core';
import { bearer, expectError, gateway, signInGoesStale } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, pageUrl } from '../support/console';
import { personWithPassword, type PersonWithSession } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('pages');
const PASSWORD = 'a passkey passphrase 2026';
/** A page of the stack at the origin its passkeys belong to. */
const atLocalhost = (path: string) => pageUrl(path).replace('://127.0.0.1:', '://localhost:');

/** A page whose browser has a platform authenticator that always says yes (user present and verified). */
async function pageWithAuthenticator(): Promise<{ page: Page; cdp: CDPSession }> {
  const page = await browser().newPage();
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { page, cdp };
}

async function signInWithPassword(page: Page, person: PersonWithSession): Promise<void> {
  await page.goto(atLocalhost('/app/login'));
  await page.evaluate(() => localStorage.removeItem('floe.session'));
  await page.getByLabel('Email address').fill(person.email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * In the page: a registration ceremony of the signed-in person, the
 * authenticator's answer made with the options as given but for
 * `excludeCredentials` (so the same authenticator may make several), and the
 * answer's JSON — not sent.
 */
function answerRegistration(page: Page, access: string): Promise<{ ceremony_id: string; response: Record<string, unknown> }> {
  return page.evaluate(async (token) => {
    const res = await fetch('/v1/auth/passkeys/register/options', { method: 'POST', headers: { Authorization: `Bearer ${token}` } });
    const ceremony = await res.json();
    const options = { ...ceremony.options, excludeCredentials: [] };
    const credential = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options) }) as PublicKeyCredential;
    return { ceremony_id: ceremony.ceremony_id as string, response: credential.toJSON() as unknown as Record<string, unknown> };
  }, access);
}

test('add a passkey, sign in with it alone and as the second step, confirm a stale session with it, delete it', async () => {
  const person = await personWithPassword('passkey', PASSWORD);
  const { page } = await pageWithAuthenticator();
  await signInWithPassword(page, person);
  await page.waitForURL(/\/app\/home/);
  await page.goto(atLocalhost('/app/account'));
  await drawn(page);
  const section = page.getByRole('region', { name: 'Passkeys' });
  await section.getByLabel('What to call it').fill('virtual key');
  await section.getByRole('button', { name: 'Add a passkey' }).click();
  await section.getByRole('cell', { name: 'virtual key', exact: true }).waitFor();
  await expectAccessible(page, 'the passkeys section');
  await shot(page, 'passkeys-1-added');
  const listed = await gateway().get('/v1/auth/passkeys').set(bearer(person.access));
  expect(listed.body).toMatchObject({ count: 1, limit: 10, passkeys: [{ name: 'virtual key', device_type: expect.any(String), last_used_at: null }] });
  const passkeyId = listed.body.passkeys[0].passkey_id as string;

  // Signed out: the passkey alone signs in.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(/\/app\/login/);
  await page.getByRole('button', { name: 'Sign in with a passkey' }).click();
  await page.waitForURL(/\/app\/home/);

  // With a passkey the password alone no longer signs in: the second step offers the passkey.
  await signInWithPassword(page, person);
  await page.getByRole('button', { name: 'Use a passkey instead' }).click();
  await page.waitForURL(/\/app\/home/);
  expect((await gateway().get('/v1/auth/mfa').set(bearer(person.access))).body.passkeys).toBe(1);

  // A stale session: deleting the passkey is a sensitive change; the passkey itself confirms it.
  await page.goto(atLocalhost('/app/account'));
  await drawn(page);
  const sessionId = await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session')!).session_id as string);
  await signInGoesStale(sessionId);
  await section.getByRole('button', { name: 'Delete the passkey virtual key' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.getByRole('button', { name: 'Use a passkey instead' }).click();
  await dialog.waitFor({ state: 'detached' });
  await section.getByText('No passkeys yet').waitFor();
  expectError(await gateway().delete(`/v1/auth/passkeys/${encodeURIComponent(passkeyId)}`).set(bearer(person.access)), 404, 'passkey_not_found');
  expect((await signInAndAnswer(person)).status).toBe(200);
  await page.close();
}, 120_000);

/** The password login's answer (a session again once no factor is left). */
const signInAndAnswer = (p: PersonWithSession) => gateway().post('/v1/auth/login').send({ email: p.email, password: PASSWORD });

test('the API refuses a credential twice, registrations past ten racing, another origin, no ceremony, and another person\'s ceremony', async () => {
  const person = await personWithPassword('passkey-refusals', PASSWORD);
  const other = await personWithPassword('passkey-other', PASSWORD);
  const { page } = await pageWithAuthenticator();
  await page.goto(atLocalhost('/app/login'));
  const register = (access: string, body: object) => gateway().post('/v1/auth/passkeys').set(bearer(access)).send(body);

  const first = await answerRegistration(page, person.access);
  expect((await register(person.access, { ...first, name: 'first' })).status).toBe(201);
  expectError(await register(person.access, first), 409, 'passkey_exists');

  // Twenty answers to twenty ceremonies at once: nine more fit (ten in all), the rest are past the limit.
  const answers = [];
  for (let i = 0; i < 20; i++) answers.push(await answerRegistration(page, person.access));
  const results = await Promise.all(answers.map((a, i) => register(person.access, { ...a, name: `key ${i}` })));
  expect(results.filter((r) => r.status === 201)).toHaveLength(9);
  for (const r of results.filter((x) => x.status !== 201)) expectError(r, 409, 'passkey_limit');
  expect((await gateway().get('/v1/auth/passkeys').set(bearer(person.access))).body.count).toBe(10);
  expectError(await gateway().post('/v1/auth/passkeys/register/options').set(bearer(person.access)), 409, 'passkey_limit');

  // An answer from a page of another origin, and one to no ceremony.
  const elsewhere = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'x', origin: 'https://evil.example' })).toString('base64url');
  const forged = { id: 'abc', rawId: 'abc', type: 'public-key', response: { clientDataJSON: elsewhere, authenticatorData: 'AA', signature: 'AA' } };
  expectError(await gateway().post('/v1/auth/passkeys/login').send({ ceremony_id: 'wac_none', response: forged }), 403, 'origin_not_allowed');
  const here = Buffer.from(JSON.stringify({ type: 'webauthn.get', challenge: 'x', origin: new URL(atLocalhost('/')).origin })).toString('base64url');
  expectError(await gateway().post('/v1/auth/passkeys/login').send({ ceremony_id: 'wac_none', response: { ...forged, response: { ...forged.response, clientDataJSON: here } } }), 401, 'invalid_passkey');

  // Another person's registration ceremony is not this person's to answer.
  const theirs = await answerRegistration(page, other.access);
  expectError(await register(person.access, theirs), 400, 'invalid_passkey');
  expectError(await gateway().post('/v1/auth/login/mfa/passkey-options').send({ mfa_token: 'mfa_nothing' }), 401, 'invalid_mfa_token');
  expectError(await gateway().patch('/v1/auth/passkeys/nope').set(bearer(person.access)).send({ name: 'x' }), 404, 'passkey_not_found');
  expectError(await gateway().get('/v1/auth/passkeys').set(bearer(other.access.replace(/.$/, ''))), 401, 'unauthorized');
  await page.close();
}, 120_000);
