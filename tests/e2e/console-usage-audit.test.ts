import type { Page } from 'playwright-core';
import { bearer, gateway } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { bytesWords, drawn, expectAccessible, signedInPage } from '../support/console';
import { invitedMemberWithPassword, personWithPassword, type PersonWithSession } from '../support/people';

// The console's usage and audit pages (services/gateway/pages/usage.js,
// audit.js) in headless Chromium: the figures on the page are the API's
// (GET /v1/usage, GET /v1/audit), a measurement made from the page shows its
// time and then the once-a-minute refusal in words, the audit table filters
// by action with the filter in the address, a member sees only their own
// events, and another organisation's id in the address shows none of its
// events. Screenshots under .data/artifacts/pages (usage-…, audit-…).

const browser = chromiumForFile();
const shot = screenshots('pages');

const count = (n: number) => n.toLocaleString('en');
/** The share of a limit in words, as usage.js writes it. */
function share(current: number, value: number): string {
  const pct = value > 0 ? (current / value) * 100 : current > 0 ? 100 : 0;
  return pct > 0 && pct < 1 ? '<1%' : `${Math.round(pct)}%`;
}

interface Limit { value: number; current: number }
interface AuditEvent { action: string; actor_id: string | null; target_id: string | null }


/** The audit table's rows as [action, actor, whole row text]. */
const auditRows = (page: Page) => page.locator('#audit-results tbody tr').evaluateAll((rows) => rows.map((r) => [
  (r as HTMLElement).dataset.action ?? '', r.children[2]?.textContent ?? '', r.textContent ?? '',
]));

let owner: PersonWithSession;

test('usage: charts, table and headroom say the API\'s figures; Measure now shows the new time, then the once-a-minute refusal', async () => {
  owner = await personWithPassword('usage', 'a usage page passphrase 1');
  // A file in lake's blob bucket, so the measurement has something to count.
  const put = await gateway().post(`/v1/warehouses/${owner.lake}/blobs/upload`).query({ key: 'notes/usage.txt' }).set(bearer(owner.access)).set('Content-Type', 'text/plain').send('what the usage page measures, in bytes');
  expect(put.status).toBe(201);

  const page = await signedInPage(browser(), owner, '/app/usage');
  expect(await drawn(page)).toBe(`Usage of ${owner.org.name}`);
  const card = page.locator('li.card[data-catalog="lake"]');
  await card.waitFor();
  await expectAccessible(page, 'usage before measuring');
  await shot(page, 'usage-1-before');

  // Measure now: the card says the new measured time, the one GET /v1/usage then answers.
  await card.getByRole('button', { name: 'Measure now: lake' }).click();
  await card.getByRole('status').filter({ hasText: 'Measured lake:' }).waitFor();
  const usage = (await gateway().get('/v1/usage').query({ org_id: owner.org.org_id, days: '7' }).set(bearer(owner.access))).body;
  const lake = usage.warehouses.find((w: { warehouse_id: string }) => w.warehouse_id === owner.lake);
  expect(lake.footprint).toMatchObject({ source: 'on_demand', bytes: put.body.size, objects: 1 });
  expect(await card.locator('time').getAttribute('datetime')).toBe(lake.footprint.measured_at);
  await expect(card.locator('dd').nth(2).textContent()).resolves.toMatch(/^measured \d+ s ago/);
  await expect(card.locator('dd').first().textContent()).resolves.toContain(bytesWords(lake.footprint.bytes));

  // The chart: an image labelled by its <title> and <desc>, the desc naming the catalog and its figure in words.
  const chart = page.locator('#bytes svg.chart');
  await chart.waitFor();
  expect(await chart.getAttribute('role')).toBe('img');
  expect(await chart.getAttribute('aria-labelledby')).toBe('bytes-chart-title bytes-chart-desc');
  const desc = await chart.locator('desc').textContent();
  expect(desc).toContain(`lake: ${bytesWords(lake.footprint.bytes)} on ${lake.days.at(-1).day}`);
  expect(await chart.locator('title').textContent()).toBe('Stored bytes per catalog');
  expect(await chart.locator('path.chart-line, circle.chart-dot').count()).toBeGreaterThan(0);

  // The same figures as a table after the chart: today's row carries the API's byte count.
  await page.locator('#bytes details summary').click();
  const today = page.locator('#bytes table tbody tr').last();
  expect(await today.locator('td').first().textContent()).toBe(lake.days.at(-1).day);
  expect(await today.locator('data').getAttribute('value')).toBe(String(lake.days.at(-1).bytes));
  expect(lake.days.at(-1).bytes).toBe(lake.footprint.bytes);

  // Headroom: each bar's words are the API's limit figures.
  const limits = usage.limits as Record<string, Limit>;
  const storage = page.locator('li[data-limit="storage_bytes"]');
  expect(await storage.locator('.figures').textContent()).toBe(`${bytesWords(limits.storage_bytes.current)} of ${bytesWords(limits.storage_bytes.value)} (${share(limits.storage_bytes.current, limits.storage_bytes.value)})`);
  expect(limits.storage_bytes.current).toBeGreaterThanOrEqual(lake.footprint.bytes);
  const catalogs = page.locator('li[data-limit="warehouses"]');
  expect(await catalogs.locator('.figures').textContent()).toBe(`${count(limits.warehouses.current)} of ${count(limits.warehouses.value)} (${share(limits.warehouses.current, limits.warehouses.value)})`);
  const projects = page.locator('li[data-limit="projects"] .bar > span');
  expect(parseFloat(await projects.evaluate((el) => (el as HTMLElement).style.width))).toBeCloseTo((limits.projects.current / limits.projects.value) * 100, 1);
  await expectAccessible(page, 'usage measured, table open');
  await shot(page, 'usage-2-measured');

  // Again within the minute: refused, in words.
  await card.getByRole('button', { name: 'Measure now: lake' }).click();
  await card.getByRole('alert').filter({ hasText: 'Floe measures a catalog at most once a minute' }).waitFor();
  expect(await card.locator('time').getAttribute('datetime')).toBe(lake.footprint.measured_at);
  await shot(page, 'usage-3-measure-refused');

  // A phone, 30 days of history.
  const phone = await signedInPage(browser(), owner, '/app/usage?days=30', { width: 390 });
  await drawn(phone);
  expect(await phone.getByRole('link', { name: '30 days' }).getAttribute('aria-current')).toBe('true');
  expect(await phone.locator('#bytes table tbody tr').count()).toBe(30);
  await expectAccessible(phone, 'usage at 390 px');
  await shot(phone, 'usage-4-phone');
  await Promise.all([page.close(), phone.close()]);
}, 120_000);

test('audit: the organisation\'s events with their actor, filtered by action in the address; a member sees their own; another organisation sees none', async () => {
  const key = await gateway().post('/v1/api-keys').set(bearer(owner.access)).send({ label: 'audit page key' });
  expect(key.status).toBe(201);
  const member = await invitedMemberWithPassword(owner, 'usage-member', 'a member page passphrase 2');
  const memberKey = await gateway().post('/v1/api-keys').set(bearer(member.access)).send({ label: 'member key' });
  expect(memberKey.status).toBe(201);
  const api = (await gateway().get('/v1/audit').query({ org_id: owner.org.org_id }).set(bearer(owner.access))).body.events as AuditEvent[];
  expect(api.map((e) => e.action)).toEqual(expect.arrayContaining(['warehouse.measure', 'api_key.create', 'org.member_join']));

  // The admin: every member's events, each with who acted.
  const page = await signedInPage(browser(), owner, '/app/audit');
  expect(await drawn(page)).toBe(`Audit of ${owner.org.name}`);
  await page.getByRole('status').filter({ hasText: `Events of ${owner.org.name}, by every member` }).waitFor();
  let rows = await auditRows(page);
  expect(rows.length).toBe(api.length);
  expect(rows.find(([a, , text]) => a === 'warehouse.measure' && text.includes('lake'))?.[1]).toBe(`${owner.email} (you)`);
  expect(rows.find(([a, , text]) => a === 'api_key.create' && text.includes(key.body.key_id))?.[1]).toBe(`${owner.email} (you)`);
  expect(rows.find(([a]) => a === 'org.member_join')?.[1]).toBe(member.email);
  await expectAccessible(page, 'audit as admin');
  await shot(page, 'audit-1-admin');

  // Filter by action: only those rows, and the address carries the filter.
  await page.getByLabel('Action', { exact: true }).selectOption('api_key.create');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/[?&]action=api_key\.create/);
  await drawn(page);
  rows = await auditRows(page);
  expect(rows.length).toBe(api.filter((e) => e.action === 'api_key.create').length);
  expect(rows.every(([a]) => a === 'api_key.create')).toBe(true);
  expect(rows.some(([, , text]) => text.includes(key.body.key_id))).toBe(true);
  expect(await page.getByLabel('Action', { exact: true }).inputValue()).toBe('api_key.create');
  await shot(page, 'audit-2-filtered');

  // Actor is matched in the page, which says so; at a phone's width.
  const narrow = await signedInPage(browser(), owner, `/app/audit?actor=${encodeURIComponent(member.email)}`, { width: 390 });
  await drawn(narrow);
  await narrow.getByRole('status').filter({ hasText: 'Actor and catalog matched here' }).waitFor();
  rows = await auditRows(narrow);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.every(([, actor]) => actor === member.email)).toBe(true);
  await expectAccessible(narrow, 'audit filtered by actor at 390 px');
  await shot(narrow, 'audit-3-actor-phone');

  // A member: only their own events, never the admin's.
  const asMember = await signedInPage(browser(), member, `/app/audit?org=${owner.org.org_id}`);
  await drawn(asMember);
  await asMember.getByRole('status').filter({ hasText: 'Your own events' }).waitFor();
  rows = await auditRows(asMember);
  expect(rows.some(([a, , text]) => a === 'api_key.create' && text.includes(memberKey.body.key_id))).toBe(true);
  expect(rows.every(([, actor]) => actor === `${member.email} (you)`)).toBe(true);
  expect(await asMember.locator('main').textContent()).not.toContain(key.body.key_id);
  await expectAccessible(asMember, 'audit as member');
  await shot(asMember, 'audit-4-member');

  // Another organisation's person with the first's id in the address: their own organisation, none of the first's events.
  const stranger = await personWithPassword('usage-stranger', 'a stranger page passphrase 3');
  const away = await signedInPage(browser(), stranger, `/app/audit?org=${owner.org.org_id}`);
  expect(await drawn(away)).toBe(`Audit of ${stranger.org.name}`);
  const seen = (await away.locator('main').textContent()) ?? '';
  for (const theirs of [owner.email, member.email, owner.lake, key.body.key_id, owner.org.name]) expect(seen).not.toContain(theirs);
  expect((await auditRows(away)).every(([, actor]) => actor === `${stranger.email} (you)` || actor === 'Floe')).toBe(true);
  await expectAccessible(away, 'audit of another organisation');
  await shot(away, 'audit-5-cross-tenant');
  await Promise.all([page.close(), narrow.close(), asMember.close(), away.close()]);
}, 120_000);
