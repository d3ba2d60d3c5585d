import type { Page } from 'playwright-core';
import { bearer, gateway, sql } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, signedInPage } from '../support/console';
import { mailsTo } from '../support/mail';
import { invitedMemberWithPassword, personWithPassword } from '../support/people';

// The organisation page, the invitation page and the account page's API
// keys, as people use them: an admin invites a colleague through the form,
// the colleague (who has an account already) follows the mail's link and
// accepts, the admin changes their role and back, makes an agent whose key
// is shown once and works, and revokes it; a member sees the people but no
// admin actions; a person's own API key is made and revoked on the account
// page; another organisation's id in the address shows only one's own.

const browser = chromiumForFile();
const shot = screenshots('pages');
const PASSWORD = 'an organisation passphrase 1';

/** The token of the /app/invitation link in the newest invitation mail to `address`. */
async function invitationTokenTo(address: string): Promise<string> {
  const until = Date.now() + 10_000;
  for (;;) {
    const mail = (await mailsTo(address)).filter((m) => m.subject.includes('invited you')).pop();
    const m = mail && /\/app\/invitation\?token=([A-Za-z0-9_%-]+)/.exec(mail.text);
    if (m) {
      expect(mail.text).toContain(decodeURIComponent(m[1]));
      expect(mail.text).toContain('/app/signup');
      return decodeURIComponent(m[1]);
    }
    if (Date.now() > until) throw new Error(`no invitation mail with a link to ${address}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const memberRow = (page: Page, principalId: string) => page.locator(`tr[data-member="${principalId}"]`);
const orgName = async (access: string, orgId: string) =>
  ((await gateway().get('/v1/orgs').set(bearer(access))).body.organizations as Array<{ org_id: string; name: string }>).find((o) => o.org_id === orgId)!.name;

test('an admin invites, the invitee accepts from the mail, roles change, an agent is made and revoked; a member sees no admin actions', async () => {
  const [admin, invitee, stranger] = await Promise.all(['orga', 'orgb', 'orgc'].map((p) => personWithPassword(p, PASSWORD)));
  const adminOrg = await orgName(admin.access, admin.org.org_id);

  // The admin's organisation page: the settings, themselves as admin, the invitation form.
  const page = await signedInPage(browser(), admin, '/app/org');
  expect(await drawn(page)).toBe(adminOrg);
  await expect(memberRow(page, admin.principalId).textContent()).resolves.toContain(admin.email);
  await expect(memberRow(page, admin.principalId).locator('.badge').textContent()).resolves.toBe('admin');
  await page.getByLabel('Organisation name').waitFor();
  await expectAccessible(page, 'organisation page (admin)');
  await shot(page, 'org-1-admin');

  // Invite through the form; the invitation is listed as pending.
  const invite = page.locator('#invite-form');
  await invite.getByLabel('Email address').fill(invitee.email);
  await invite.getByLabel('Role').selectOption('member');
  await invite.getByRole('button', { name: 'Send invitation' }).click();
  await page.getByRole('status').filter({ hasText: `Invitation sent to ${invitee.email} as member by mail` }).waitFor();
  await expect(page.locator('tr[data-invitation]').filter({ hasText: invitee.email }).textContent()).resolves.toContain('pending');
  await shot(page, 'org-2-invited');

  // The invitee follows the mail's link (at a phone's width) and accepts; the organisation is in their picker.
  const token = await invitationTokenTo(invitee.email);
  const theirs = await signedInPage(browser(), invitee, `/app/invitation?token=${encodeURIComponent(token)}`, { width: 390 });
  await drawn(theirs);
  await theirs.locator('code', { hasText: token }).waitFor();
  await expectAccessible(theirs, 'invitation page at 390');
  await shot(theirs, 'org-3-invitation');
  await theirs.getByRole('button', { name: 'Accept the invitation' }).click();
  await theirs.getByRole('heading', { name: `You joined ${adminOrg}` }).waitFor();
  await expect(theirs.locator('#org-pick option', { hasText: adminOrg }).count()).resolves.toBe(1);
  await expectAccessible(theirs, 'invitation accepted');
  await shot(theirs, 'org-4-joined');
  await theirs.getByRole('link', { name: `Go to ${adminOrg}` }).click();
  await theirs.waitForURL(/\/app\/home\?org=/);
  expect(await drawn(theirs)).toBe(adminOrg);

  // The admin sees them as a member, makes them admin, and a member again.
  await page.reload();
  await drawn(page);
  const row = memberRow(page, invitee.principalId);
  await expect(row.textContent()).resolves.toContain(invitee.email);
  await expect(row.locator('.badge').textContent()).resolves.toBe('member');
  await expect(page.locator('tr[data-invitation]').filter({ hasText: invitee.email }).textContent()).resolves.toContain('accepted');
  await row.getByRole('button', { name: `Make admin ${invitee.email}` }).click();
  await row.getByRole('button', { name: `Make member ${invitee.email}` }).waitFor();
  await expect(row.locator('.badge').textContent()).resolves.toBe('admin');
  await shot(page, 'org-5-made-admin');
  await row.getByRole('button', { name: `Make member ${invitee.email}` }).click();
  await row.getByRole('button', { name: `Make admin ${invitee.email}` }).waitFor();
  const members = await gateway().get(`/v1/orgs/${admin.org.org_id}/members`).set(bearer(admin.access));
  expect(members.body.members.find((m: { principal_id: string }) => m.principal_id === invitee.principalId).role).toBe('member');

  // An agent made through the page: its key shown once, and it works.
  const agentForm = page.locator('#agent-form');
  await agentForm.getByLabel('Agent name').fill('page-loader');
  await agentForm.getByLabel('lake').selectOption('read');
  await agentForm.getByRole('button', { name: 'Create agent' }).click();
  const made = page.locator('[data-made-agent]');
  await made.waitFor();
  const key = (await made.locator('code.secret').textContent())!;
  expect(key).toMatch(/^al_live_/);
  await expect(made.textContent()).resolves.toContain('Floe shows it only this once');
  expect((await gateway().get('/v1/orgs').set(bearer(key))).status).toBe(200);
  const agentRow = page.locator(`tr[data-agent="${await made.getAttribute('data-made-agent')}"]`);
  await expect(agentRow.textContent()).resolves.toContain('lake:read');
  await expect(agentRow.textContent()).resolves.toContain(admin.email);
  await expectAccessible(page, 'organisation page with a new agent key');
  await shot(page, 'org-6-agent-key');

  // The member: people and agents, but no invitation form, no role changes, no revoking the admin's agent.
  const member = await signedInPage(browser(), invitee, `/app/org?org=${admin.org.org_id}`);
  expect(await drawn(member)).toBe(adminOrg);
  await expect(memberRow(member, admin.principalId).textContent()).resolves.toContain(admin.email);
  await member.locator(`tr[data-agent]`, { hasText: 'page-loader' }).waitFor();
  expect(await member.locator('#invite-form').count()).toBe(0);
  expect(await member.getByRole('button', { name: /^Make / }).count()).toBe(0);
  expect(await member.getByRole('button', { name: /^Remove / }).count()).toBe(0);
  expect(await member.getByRole('button', { name: 'Revoke agent page-loader' }).count()).toBe(0);
  expect(await member.locator('#policy-form').count()).toBe(0);
  await member.getByRole('button', { name: `Leave ${adminOrg}` }).waitFor();
  await expectAccessible(member, 'organisation page (member)');
  await shot(member, 'org-7-member');

  // The admin revokes the agent: the row goes, the key is refused.
  await page.getByRole('button', { name: 'Revoke agent page-loader' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Type page-loader to confirm').fill('page-loader');
  await expectAccessible(page, 'revoke dialog');
  await dialog.getByRole('button', { name: 'Revoke', exact: true }).click();
  await agentRow.waitFor({ state: 'detached' });
  expect(await page.content()).not.toContain(key);
  expect((await gateway().get('/v1/orgs').set(bearer(key))).status).toBe(401);
  await shot(page, 'org-8-agent-revoked');

  // Another organisation's id in the address shows one's own organisation, never the first's people.
  const other = await signedInPage(browser(), stranger, `/app/org?org=${admin.org.org_id}`, { width: 390 });
  expect(await drawn(other)).toBe(await orgName(stranger.access, stranger.org.org_id));
  expect(await other.locator('main').textContent()).not.toContain(admin.email);
  expect(await other.locator('main').textContent()).not.toContain(adminOrg);
  await expectAccessible(other, 'organisation page at 390');
  await shot(other, 'org-9-other-tenant');
  await Promise.all([page.close(), theirs.close(), member.close(), other.close()]);
}, 120_000);

test('the account page makes an API key, shown once, that works until revoked; sessions are in words', async () => {
  const person = await personWithPassword('orgk', PASSWORD);
  const page = await signedInPage(browser(), person, '/app/account', { width: 390 });
  expect(await drawn(page)).toBe('Your account');
  await page.getByText(`Signed in as ${person.email}.`).waitFor();
  await page.getByText('(this session)').waitFor();
  const chrome = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
  const laptop = await gateway().post('/v1/auth/login').set('User-Agent', chrome).send({ email: person.email, password: PASSWORD });
  await page.reload();
  await drawn(page);
  const client = page.locator(`tr[data-session="${laptop.body.session_id}"] td:first-child span[title]`);
  await expect(client.textContent()).resolves.toBe('Chrome on Windows');
  await expect(client.getAttribute('title')).resolves.toBe(chrome);
  await page.getByRole('button', { name: 'Sign out the session of Chrome on Windows' }).waitFor();
  await page.getByRole('link', { name: await orgName(person.access, person.org.org_id) }).waitFor();
  await expectAccessible(page, 'account page at 390');

  await page.getByLabel('What the key is for').fill('page laptop');
  await page.getByRole('button', { name: 'Create API key' }).click();
  const made = page.locator('[data-made-key]');
  await made.waitFor();
  const key = (await made.locator('code.secret').textContent())!;
  const keyId = (await made.getAttribute('data-made-key'))!;
  expect((await gateway().get('/v1/orgs').set(bearer(key))).body.organizations.map((o: { org_id: string }) => o.org_id)).toEqual([person.org.org_id]);
  await expectAccessible(page, 'account page with a new key');
  await shot(page, 'org-10-account-key');

  const row = page.locator(`tr[data-key="${keyId}"]`);
  await expect(row.textContent()).resolves.toContain('page laptop');
  await row.getByRole('button', { name: 'Revoke the API key page laptop' }).click();
  await row.locator('.badge', { hasText: 'revoked' }).waitFor();
  expect((await gateway().get('/v1/orgs').set(bearer(key))).status).toBe(401);
  expect(await page.content()).not.toContain(key);
  await shot(page, 'org-11-account-revoked');
  await page.close();
}, 60_000);

test('mail domains: a claim the address cannot prove shows the DNS record; claimed domains are listed, domain join switched, one removed; a member reads them', async () => {
  const admin = await personWithPassword('org-dom', PASSWORD);
  const page = await signedInPage(browser(), admin, '/app/org');
  await drawn(page);
  const section = page.locator('section[aria-labelledby="domains-title"]');
  await section.getByText('No mail domain is claimed.').waitFor();
  await section.getByText('Domain join is off').waitFor();

  // Not the admin's own address: Floe names the DNS record that would prove it.
  const unproven = `far-${Date.now().toString(36)}.test`;
  await section.getByLabel('Domain', { exact: true }).fill(unproven);
  await section.getByRole('button', { name: 'Claim domain' }).click();
  await section.getByText(`To prove ${unproven}, publish this DNS record`).waitFor();
  const record = section.locator('dl.dns-record');
  await expect(record.locator('dd').first().textContent()).resolves.toBe('TXT');
  await expectAccessible(page, 'a domain claim asking for a DNS record');
  await shot(page, 'org-12-domain-dns');

  // A domain the organisation holds (claimed as the DNS proof would), listed with when; join switched on.
  const held = `held-${Date.now().toString(36)}.test`;
  await sql(`INSERT INTO org_domains (domain, org_id, claimed_by) VALUES ($1, $2, $3)`, [held, admin.org.org_id, admin.principalId]);
  await page.reload();
  await drawn(page);
  const row = section.locator(`tr[data-domain="${held}"]`);
  await row.waitFor();
  await section.getByRole('button', { name: 'Switch domain join on' }).click();
  await section.getByText('Domain join is on').first().waitFor();
  expect((await gateway().get(`/v1/orgs/${admin.org.org_id}/policy`).set(bearer(admin.access))).body).toMatchObject({ domain_join: true, domains: [{ domain: held }] });
  await shot(page, 'org-13-domains');

  // A member sees the domains and the setting, and no action on them.
  const member = await invitedMemberWithPassword(admin, 'org-dom-m', PASSWORD);
  const asMember = await signedInPage(browser(), member, `/app/org?org=${admin.org.org_id}`);
  await drawn(asMember);
  const theirs = asMember.locator('section[aria-labelledby="domains-title"]');
  await theirs.locator(`tr[data-domain="${held}"]`).waitFor();
  await theirs.getByText('Domain join is on').waitFor();
  expect(await theirs.getByRole('button').count()).toBe(0);
  await expectAccessible(asMember, 'domains as a member');
  await asMember.close();

  // Removing the last domain (its name typed) switches domain join off.
  await row.getByRole('button', { name: `Remove ${held}` }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel(`Type ${held} to confirm`).fill(held);
  await dialog.getByRole('button', { name: 'Remove domain' }).click();
  await section.getByText(`${held} is removed.`).waitFor();
  await section.getByText('No mail domain is claimed.').waitFor();
  await section.getByText('Domain join is off').waitFor();
  await page.close();
}, 90_000);
