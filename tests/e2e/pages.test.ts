import { TERMS } from '@floe/config';
import { bearer, expectError, gateway, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { linkTokenIn, newestMailTo } from '../support/mail';

// The pages people act on, in headless Chromium (Debian's, driven by
// playwright-core): sign up through the form, open the mail, set a password
// on the welcome page, land signed in, sign out another session, reset the
// password from the reset mail. Screenshots of each step are kept under
// .data/artifacts/pages.

const browser = chromiumForFile();
const shot = screenshots('pages');

test('sign up, set a password, sign out another session, reset the password — all through the pages', async () => {
  const url = (p: string) => `${stack().base_url}${p}`;
  const email = `page-${Date.now().toString(36)}@example.com`;
  const handle = `page-${Date.now().toString(36)}`;
  const password = 'a page-typed passphrase 1';
  const page = await browser().newPage();

  // Sign up through the form; the labels name the fields.
  await page.goto(url('/app/signup'));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Your name').fill('Page Person');
  await page.getByLabel('Organisation name').fill('Page Org');
  await page.getByLabel('Organisation handle').fill(handle);
  // The Terms in force are named beside a box that must be ticked, and linked.
  await page.locator('#terms-version').filter({ hasText: TERMS.version }).waitFor();
  expect(await page.getByRole('link', { name: 'Terms of Service' }).getAttribute('href')).toBe(TERMS.url);
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await page.getByRole('alert').filter({ hasText: 'Tick the box to accept the Terms' }).waitFor();
  await page.getByLabel(/I accept the Terms of Service/).check();
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await page.getByRole('status').filter({ hasText: 'Check your mail' }).waitFor();
  await shot(page, '1-signup-sent');

  // The welcome link from the mail; a refused password shows the envelope's message, then a good one signs in.
  const welcome = linkTokenIn(await newestMailTo(email), 'welcome');
  await page.goto(url(`/app/welcome?token=${encodeURIComponent(welcome)}`));
  await page.getByLabel('Password').fill('short');
  await page.getByRole('button', { name: 'Set password and continue' }).click();
  await page.getByRole('alert').filter({ hasText: 'at least 12 characters' }).waitFor();
  await shot(page, '2-welcome-refused');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Set password and continue' }).click();
  await page.waitForURL(url('/app/home'));
  expect((await gateway().get('/v1/terms').set(bearer(await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session')!).access_token as string)))).body).toMatchObject({ version: TERMS.version, accepted: true });
  await page.goto(url('/app/account'));
  await page.getByText(`Signed in as ${email}.`).waitFor();
  await page.getByText('(this session)').waitFor();
  await shot(page, '3-account');

  // Another session (a second device); the account page signs it out.
  const other = await gateway().post('/v1/auth/login').set('User-Agent', 'second-device').send({ email, password });
  expect(other.status).toBe(200);
  await page.reload();
  const row = page.locator(`tr[data-session="${other.body.session_id}"]`);
  await row.waitFor();
  await shot(page, '4-two-sessions');
  await row.getByRole('button', { name: /Sign out the session of second-device/ }).click();
  await row.waitFor({ state: 'detached' });
  expectError(await gateway().post('/v1/auth/refresh').send({ refresh_token: other.body.refresh_token }), 401, 'session_revoked');
  await shot(page, '5-other-signed-out');

  // A wrong password on the login page shows the refusal.
  await page.goto(url('/app/login'));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill('not my password at all');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('alert').filter({ hasText: 'wrong address or password' }).waitFor();
  await shot(page, '6-login-refused');

  // Reset from the reset mail.
  await page.goto(url('/app/reset'));
  await page.getByLabel('Email address').fill(email);
  await page.getByRole('button', { name: 'Send me a reset link' }).click();
  await page.getByRole('status').filter({ hasText: 'reset link is on its way' }).waitFor();
  const reset = linkTokenIn(await newestMailTo(email, 2), 'reset');
  await page.goto(url(`/app/reset?token=${encodeURIComponent(reset)}`));
  await page.getByLabel('New password').fill('a brand new passphrase 2');
  await page.getByRole('button', { name: 'Set new password' }).click();
  await page.waitForURL(url('/app/account'));
  await page.getByText('(this session)').waitFor();
  await shot(page, '7-after-reset');
  expectError(await gateway().post('/v1/auth/login').send({ email, password }), 401, 'invalid_login');
  expect((await gateway().post('/v1/auth/login').send({ email, password: 'a brand new passphrase 2' })).status).toBe(200);

  // Signing out ends this session and returns to the login page.
  await page.getByRole('button', { name: 'Sign out' }).first().click();
  await page.waitForURL(url('/app/login'));
  await page.close();
}, 90_000);

test('the pages are served with a strict content security policy; /app goes to the console\'s home; the Terms and the privacy notice are pages', async () => {
  const res = await gateway().get('/app/login');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/text\/html/);
  expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
  expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
  expect((await gateway().get('/app')).headers.location).toBe('/app/home');
  expect((await gateway().get('/app/nope')).status).toBe(404);
  for (const path of [TERMS.url, TERMS.privacy_url]) {
    const legal = await gateway().get(path);
    expect(legal.status).toBe(200);
    expect(legal.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(legal.text).toContain(`<strong id="${path === TERMS.url ? 'terms' : 'privacy'}-version">${TERMS.version}</strong>`);
  }
  expect((await gateway().get('/v1/auth/config')).body.terms).toEqual({ version: TERMS.version, url: TERMS.url, privacy_url: TERMS.privacy_url });
});
