// The console's way in, in Chromium: sign up through the form after reading
// the Terms it links (the box must be ticked, the version is the one in
// force), read the mail in the development inbox's own web page and follow
// its link, set the password, and land on Home with the organisation's
// catalog `lake` and the next steps. Home is accessible, also at a phone's
// width; a member is not offered admin steps; a person in no organisation
// is told how to get one. Screenshots under .data/artifacts/pages.
import { TERMS } from '@floe/config';
import { uniq } from './control-plane-helpers';
import { bearer, gateway, signInGoesStale, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, pageUrl, signedInPage } from '../support/console';
import { newestMailTo } from '../support/mail';
import { personWithPassword } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('pages');

test('sign up with the Terms shown, read the mail in the inbox page, set a password, see lake on Home', async () => {
  const id = `${uniq()}${uniq()}`;
  const email = `console-${id}@example.com`;
  const page = await browser().newPage({ viewport: { width: 390, height: 844 } });

  await page.goto(pageUrl('/app/signup'));
  await page.getByLabel('Email address').fill(email);
  await page.getByLabel('Your name').fill('Console Person');
  await page.getByLabel('Organisation name').fill('Console Org');
  await page.getByLabel('Organisation handle').fill(`console-${id}`);
  await page.locator('#terms-version').filter({ hasText: TERMS.version }).waitFor();
  await expectAccessible(page, 'sign-up');

  // The Terms the box accepts are a page of their own, with the version in force.
  const [terms] = await Promise.all([page.waitForEvent('popup'), page.getByRole('link', { name: 'Terms of Service' }).click()]);
  await terms.waitForLoadState();
  expect(await terms.locator('#terms-version').textContent()).toBe(TERMS.version);
  await expectAccessible(terms, 'the Terms');
  await shot(terms, 'start-1-terms');
  await terms.close();

  await page.getByLabel(/I accept the Terms of Service/).check();
  await page.getByRole('button', { name: 'Send me a link' }).click();
  await page.getByRole('status').filter({ hasText: `on its way to ${email}` }).waitFor();
  await shot(page, 'start-2-signup-sent');

  // The development inbox's web page lists the mail; its HTML view links to the welcome page.
  await newestMailTo(email);
  const inbox = await browser().newPage();
  await inbox.goto(stack().mail_inbox_url!);
  await inbox.getByText(email).first().click();
  const body = inbox.frameLocator('iframe').first();
  const link = body.getByRole('link', { name: /\/app\/welcome\?token=/ });
  await link.waitFor();
  await shot(inbox, 'start-3-inbox');
  const welcome = (await link.getAttribute('href'))!;
  expect(welcome.startsWith(`${stack().base_url}/app/welcome?token=`)).toBe(true);
  await inbox.close();

  await page.goto(welcome);
  await page.getByText(`version ${TERMS.version}`).waitFor();
  await expectAccessible(page, 'welcome');
  await page.getByLabel('Password').fill('a console passphrase 12');
  await page.getByRole('button', { name: 'Set password and continue' }).click();
  await page.waitForURL(pageUrl('/app/home'));
  expect(await drawn(page)).toBe('Console Org');
  const lake = page.locator('li.card[data-catalog="lake"]');
  await lake.getByText('ready').waitFor();
  await expect(lake.getByRole('link', { name: 'lake' }).getAttribute('href')).resolves.toMatch(/^\/app\/catalog\?catalog=/);
  await page.getByRole('link', { name: 'Invite your team' }).waitFor();
  await expectAccessible(page, 'home at a phone width');
  await shot(page, 'start-4-home-phone');

  const session = await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session')!) as { access_token: string });
  expect((await gateway().get('/v1/terms').set(bearer(session.access_token))).body).toMatchObject({ version: TERMS.version, accepted: true });
  await page.close();
}, 90_000);

test('Home: a member is offered no admin step; another organisation in the address shows the person their own', async () => {
  const admin = await personWithPassword('home-admin', 'a home passphrase 123');
  const other = await personWithPassword('home-other', 'a home passphrase 456');
  const member = await personWithPassword('home-member', 'a home passphrase 789');
  const invited = await gateway().post(`/v1/orgs/${admin.org.org_id}/invitations`).set(bearer(admin.access)).send({ email: member.email, role: 'member' });
  expect(invited.status).toBe(201);
  expect((await gateway().post('/v1/orgs/invitations/accept').set(bearer(member.access)).send({ token: invited.body.token })).status).toBe(200);

  const page = await signedInPage(browser(), member, `/app/home?org=${admin.org.org_id}`);
  expect(await drawn(page)).toBe(admin.org.name);
  await page.getByText('your role: member').waitFor();
  expect(await page.getByRole('link', { name: 'Invite your team' }).count()).toBe(0);
  // Two organisations: a picker names the one in view.
  expect(await page.getByLabel('Organisation in view').inputValue()).toBe(admin.org.org_id);
  await expectAccessible(page, 'home as a member');
  await shot(page, 'start-5-home-member');

  // Someone else's organisation id in the address: the person sees their own, nothing of the other's.
  const stranger = await signedInPage(browser(), other, `/app/home?org=${admin.org.org_id}`);
  expect(await drawn(stranger)).toBe(other.org.name);
  expect(await stranger.getByText(admin.org.name).count()).toBe(0);
  await Promise.all([page.close(), stranger.close()]);
}, 90_000);

test('a stale sign-in: a sensitive change asks for the password in a dialog, then goes through; a wrong one is refused in words', async () => {
  const person = await personWithPassword('reauth', 'a reauth passphrase 321');
  const page = await signedInPage(browser(), person, '/app/org');
  await drawn(page);
  // The password was typed 11 minutes ago: making an agent is a sensitive change (401 reauth_required).
  const sessionId = await page.evaluate(() => JSON.parse(localStorage.getItem('floe.session')!).session_id as string);
  await signInGoesStale(sessionId);
  const agentForm = page.locator('#agent-form');
  await agentForm.getByLabel('Agent name').fill('after-reauth');
  await agentForm.getByRole('button', { name: 'Create agent' }).click();

  const dialog = page.getByRole('dialog', { name: 'Confirm it is you' });
  await dialog.getByText(person.email).waitFor();
  await expectAccessible(page, 'the password dialog');
  await shot(page, 'start-6-reauth');
  await dialog.getByLabel('Password').fill('not the password at all');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.getByRole('alert').filter({ hasText: /password/ }).waitFor();
  await dialog.getByLabel('Password').fill('a reauth passphrase 321');
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await page.locator('[data-made-agent]').waitFor();
  await dialog.waitFor({ state: 'detached' });
  const agents = await gateway().get(`/v1/orgs/${person.org.org_id}/agents`).set(bearer(person.access));
  expect(agents.body.agents.map((a: { name: string }) => a.name)).toContain('after-reauth');
  await page.close();
}, 60_000);
