// Two-factor authentication in Chromium: turn on an authenticator app from
// the account page (the test reads the key the page shows and computes the
// codes as an app would), sign out, sign in with the password and a code;
// sign in once with a backup code, and be refused with the same code the
// second time; a stale session's sensitive change asks for the password and
// then a backup code in the dialog; and a member of an organisation that
// requires a second factor enrols on the login page itself.
import type { Page } from 'playwright-core';
import { bearer, gateway, signInGoesStale } from './helpers';
import { authenticatorApp } from '../support/authenticator-app';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, pageUrl, signedInPage } from '../support/console';
import { invitedMemberWithPassword, personWithPassword } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('pages');
const PASSWORD = 'a two-factor passphrase 77';

/** The key the enrolment shows beside its QR code, as typed into an app. */
const shownSecret = async (page: Page) => (await page.locator('[data-secret]').textContent())!.replace(/\s+/g, '');

/** Signs in afresh on the login page (any session this browser held forgotten first). */
async function signIn(page: Page, email: string): Promise<void> {
  await page.goto(pageUrl('/app/login'));
  await page.evaluate(() => localStorage.removeItem('floe.session'));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Password').fill(PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

test('turn on an authenticator app, sign in with a code, a backup code once, and reauthenticate with both', async () => {
  const person = await personWithPassword('console-mfa', PASSWORD);
  const page = await signedInPage(browser(), person, '/app/account');
  await drawn(page);
  const section = page.getByRole('region', { name: 'Two-factor authentication' });
  await section.getByRole('button', { name: 'Set up an authenticator app' }).click();
  await section.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await expectAccessible(page, 'the enrolment');
  await shot(page, 'mfa-1-enrol');
  const next = authenticatorApp(await shownSecret(page));
  await section.getByLabel('The six-digit code the app shows').fill('000000');
  await section.getByRole('button', { name: 'Turn on' }).click();
  await section.getByRole('alert').filter({ hasText: /not right/ }).waitFor();
  await section.getByLabel('The six-digit code the app shows').fill(await next());
  await section.getByRole('button', { name: 'Turn on' }).click();
  await page.locator('[data-backup-codes]').waitFor();
  const codes = await page.locator('[data-backup-codes] li code').allTextContents();
  expect(codes).toHaveLength(10);
  await section.getByText('10 of 10 backup codes left').waitFor();
  await expectAccessible(page, 'the backup codes');
  await shot(page, 'mfa-2-backup-codes');

  // Signed out, the login asks for the code after the password.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await page.waitForURL(/\/app\/login/);
  await signIn(page, person.email);
  const step = page.locator('#second-step');
  await step.getByLabel('Code').waitFor();
  await expectAccessible(page, 'the code step');
  await shot(page, 'mfa-3-code-step');
  await step.getByLabel('Code').fill(await next());
  await step.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(/\/app\/home/);

  // A backup code signs in once; the second time it is refused in words.
  for (const expected of ['in', 'refused'] as const) {
    await signIn(page, person.email);
    await step.getByLabel('Code').fill(codes[0]);
    await step.getByRole('button', { name: 'Verify' }).click();
    if (expected === 'in') await page.waitForURL(/\/app\/home/);
    else await step.getByRole('alert').filter({ hasText: /not right \(or was already used\)/ }).waitFor();
  }

  // A stale sign-in: new backup codes are a sensitive change; the dialog asks for the password, then the code.
  await signIn(page, person.email);
  await step.getByLabel('Code').fill(await next());
  await step.getByRole('button', { name: 'Verify' }).click();
  await page.waitForURL(/\/app\/home/);
  await page.goto(pageUrl('/app/account'));
  await drawn(page);
  const sessionId = await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session')!).session_id as string);
  await signInGoesStale(sessionId);
  const renew = page.locator('#backup-codes-form');
  await renew.getByLabel(/A code from your authenticator app/).fill(codes[1]);
  await renew.getByRole('button', { name: 'Make ten new backup codes' }).click();
  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.getByLabel('Password').fill(PASSWORD);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.getByLabel(/Code from your authenticator app/).waitFor();
  await expectAccessible(page, 'the reauthentication dialog with a code field');
  await shot(page, 'mfa-4-reauth-code');
  await dialog.getByLabel(/Code from your authenticator app/).fill(codes[2]);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.locator('[data-backup-codes]').waitFor();
  const renewed = await page.locator('[data-backup-codes] li code').allTextContents();
  expect(renewed).toHaveLength(10);
  expect(renewed).not.toContain(codes[3]);
  await page.close();
}, 180_000);

test('a member of an organisation that requires a second factor enrols on the login page and lands signed in', async () => {
  const admin = await personWithPassword('console-mfa-org', PASSWORD);
  const member = await invitedMemberWithPassword(admin, 'console-mfa-member', PASSWORD);
  expect((await gateway().patch(`/v1/orgs/${admin.org.org_id}/policy`).set(bearer(admin.access)).send({ second_factor: 'required' })).status).toBe(200);
  const page = await browser().newPage();
  await signIn(page, member.email);
  const enrol = page.getByRole('region', { name: 'Set up a second factor' });
  await enrol.getByText(`${admin.org.handle} asks every member for a second factor`).waitFor();
  await enrol.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  await expectAccessible(page, 'enrolment at login');
  await shot(page, 'mfa-5-enrol-at-login');
  const next = authenticatorApp(await shownSecret(page));
  await enrol.getByLabel('The six-digit code the app shows').fill(await next());
  await enrol.getByRole('button', { name: 'Turn on' }).click();
  await page.locator('[data-backup-codes]').waitFor();
  expect(await page.locator('[data-backup-codes] li code').count()).toBe(10);
  await enrol.getByRole('button', { name: 'I have saved them — continue' }).click();
  await page.waitForURL(/\/app\/home/);
  expect(await drawn(page)).toBe(admin.org.name);
  await page.close();
}, 120_000);
