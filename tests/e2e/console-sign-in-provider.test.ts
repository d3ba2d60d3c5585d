// Sign-in with a provider in Chromium, against the stack's development
// identity provider (a real oidc-provider with its own login and consent
// pages): "Continue with" on the login page, the provider's forms, and back
// to the login page, which finishes the sign-in — a new account lands on the
// home page; an existing account asks for the code mailed to it (read from
// the stack's mail server), then lands; a linked account with an
// authenticator app asks for its code; a stale sign-in of an account without
// a password confirms with the provider in the "Confirm it is you" dialog.
import type { Page } from 'playwright-core';
import { uniq } from './control-plane-helpers';
import { bearer, gateway, signInGoesStale, stack } from './helpers';
import { authenticatorApp } from '../support/authenticator-app';
import { chromiumForFile, screenshots } from '../support/browser';
import { expectAccessible, pageUrl } from '../support/console';
import { codeIn, newestMailTo } from '../support/mail';
import { personWithPassword } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('pages');
const PROVIDER = 'Continue with the development identity provider';

/** At the provider's own login form: signs in as `login`, and consents when it asks (a first sign-in of this browser). */
async function atProvider(page: Page, login: string): Promise<void> {
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill('any password at all');
  await page.locator('button[type="submit"]').click();
  await page.waitForLoadState();
  if (page.url().startsWith(stack().identity_provider_url!)) await page.locator('button[type="submit"]').click();
}

/** From the login page through the provider's own login and consent forms, back to the login page. */
async function continueWithProvider(page: Page, login: string, returnTo?: string): Promise<void> {
  // Signed out at the provider too, so it shows its login form again rather than signing the last one in.
  await page.context().clearCookies();
  await page.goto(pageUrl(`/app/login${returnTo ? `?return_to=${encodeURIComponent(returnTo)}` : ''}`));
  await page.evaluate(() => localStorage.removeItem('floe.session'));
  await page.getByRole('button', { name: PROVIDER }).click();
  await atProvider(page, login);
}

test('a new address signs up with the provider and lands signed in; the page kept where it was going', async () => {
  const page = await browser().newPage();
  await page.goto(pageUrl('/app/login'));
  await page.getByRole('region', { name: 'Or continue with' }).waitFor();
  await expectAccessible(page, 'the login page with providers');
  await shot(page, 'provider-1-login');

  const email = `console-sso-${uniq()}${uniq()}@example.com`;
  await continueWithProvider(page, email, '/app/account');
  await page.waitForURL(/\/app\/account$/);
  const held = await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session') ?? 'null'));
  expect(held.email).toBe(email);
  const me = await gateway().get('/v1/auth/identities').set(bearer(held.access_token));
  expect(me.body.identities).toEqual([expect.objectContaining({ provider: 'dev', email })]);

  // Eleven minutes later, no password to type: the dialog confirms with the provider, and the change goes through after.
  await signInGoesStale(held.session_id);
  const twoFactor = page.getByRole('region', { name: 'Two-factor authentication' });
  await twoFactor.getByRole('button', { name: 'Set up an authenticator app' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.getByRole('button', { name: 'Confirm with the development identity provider' }).click();
  await atProvider(page, email);
  await page.waitForURL(/\/app\/account$/);
  await twoFactor.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await twoFactor.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await page.close();
});

test('an existing account is linked by the mailed code, then a second factor is asked after the provider', async () => {
  const person = await personWithPassword('console-sso-link', 'a console provider passphrase 8');
  const page = await browser().newPage();
  await continueWithProvider(page, person.email);
  const step = page.locator('#link-step');
  await step.getByLabel('Code from the mail').waitFor();
  await expectAccessible(page, 'the link step');
  await shot(page, 'provider-2-link-code');
  await step.getByLabel('Code from the mail').fill('000000' === codeIn(await newestMailTo(person.email)) ? '111111' : '000000');
  await step.getByRole('button', { name: 'Link and sign in' }).click();
  await step.getByRole('alert').filter({ hasText: /wrong/ }).waitFor();
  await step.getByLabel('Code from the mail').fill(codeIn(await newestMailTo(person.email)));
  await step.getByRole('button', { name: 'Link and sign in' }).click();
  await page.waitForURL(/\/app\/home$/);

  // An authenticator app on: the provider's sign-in is the first step; the code step follows on the same page.
  const started = await gateway().post('/v1/auth/mfa/totp/start').set(bearer(person.access)).send({});
  const app = authenticatorApp(started.body.secret);
  expect((await gateway().post('/v1/auth/mfa/totp/confirm').set(bearer(person.access)).send({ code: await app() })).status).toBe(200);
  await continueWithProvider(page, person.email);
  const second = page.locator('#second-step');
  await second.getByLabel('Code').fill(await app());
  await second.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(/\/app\/home$/);

  // The account page lists the link; with a password to fall back on, it can go.
  await page.goto(pageUrl('/app/account'));
  const providers = page.getByRole('region', { name: 'Sign-in providers' });
  await providers.getByRole('cell', { name: person.email }).waitFor();
  await expectAccessible(page, 'the account page with a linked provider');
  await shot(page, 'provider-3-account');
  await providers.getByRole('button', { name: 'Unlink the development identity provider' }).click();
  await providers.getByText('You sign in with your password only.').waitFor();
  expect((await gateway().get('/v1/auth/identities').set(bearer(person.access))).body.identities).toEqual([]);
  await page.close();
});
