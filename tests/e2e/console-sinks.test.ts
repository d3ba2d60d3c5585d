import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { bearer, expectError, gateway, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, fact, signedInPage } from '../support/console';
import { invitedMemberWithPassword, personWithPassword } from '../support/people';
import { until } from '../support/poll';

// The console's sinks page, /app/sinks?catalog=<id>[&sink=<id>], in headless
// Chromium: a person makes a sink through the form and reads its send key
// (shown once) and a curl from the page, sends rows with that key over plain
// HTTP, one of them a misfit; after the roll the page counts the rows and
// explains the reject with its reason and the row as sent; a batch tested in
// the box gets a verdict per row; a device token is made (its URL works) and
// revoked; the sink is deleted after typing its name. A member (read level)
// sees the sink but none of the write actions; another organisation's person
// sees "Not found" and nothing of it. Screenshots under .data/artifacts/pages.

const execFileAsync = promisify(execFile);
const browser = chromiumForFile();
const shot = screenshots('pages');
const schema = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };



test('make a sink, send rows with its key, see them counted and the misfit explained, test a batch, device token, delete; a member reads; a stranger sees Not found', async () => {
  const password = 'a sinks page passphrase 1';
  const [owner, stranger] = await Promise.all([personWithPassword('sinks', password), personWithPassword('sinksx', password)]);
  expect((await gateway().post('/v1/tables').set(bearer(owner.access)).send({ warehouse_id: owner.lake, namespace: 'events', name: 'clicks', schema })).status).toBe(201);
  const member = await invitedMemberWithPassword(owner, 'sinks-m', password);
  const listAt = `/app/sinks?catalog=${owner.lake}`;

  // No sink yet; the form offers the catalog's table.
  const page = await signedInPage(browser(), owner, listAt);
  expect(await drawn(page)).toBe('Sinks of lake');
  await page.getByText('No sinks in this catalog yet.').waitFor();
  expect(await page.getByLabel('Table').locator('option').allTextContents()).toEqual(['events.clicks']);
  await expectAccessible(page, 'sinks, none yet');
  await shot(page, 'sinks-1-none');

  // Make one that rolls a second after the last batch; the send key is shown once, with a curl that sends a row.
  await page.getByLabel('Sink name').fill('clicks');
  await page.getByLabel('Roll sooner after a quiet spell of (seconds)').fill('1');
  await page.getByRole('button', { name: 'Make the sink' }).click();
  await page.getByRole('heading', { name: 'Sink clicks is made' }).waitFor();
  const made = page.locator('section[aria-labelledby="made-title"]');
  await made.getByText('Copy the send key now: Floe shows it only this once.').waitFor();
  const key = (await made.locator('.once code').textContent())!;
  const curl = (await made.locator('pre code').textContent())!;
  const sink = (await gateway().get(`/v1/sinks?warehouse=${owner.lake}`).set(bearer(owner.access))).body.sinks[0];
  expect(sink).toMatchObject({ name: 'clicks', table: 'events.clicks', roll: { inactivity_seconds: 1 } });
  expect(key).toMatch(/^fsk_/);
  const sendUrl = /^curl -X POST '([^']+)'/.exec(curl)![1];
  expect(sendUrl).toBe(sink.send_url);
  expect(curl).toContain(`-H "Authorization: Bearer ${key}"`);
  expect(curl).toContain(`-d '[{"id":1,"msg":"hello"}]'`);
  const row = page.locator('tr[data-sink="clicks"]');
  expect(await row.locator('td').allTextContents()).toEqual(['clicks', 'events.clicks', 'active', 'not yet', 'never rolled; nothing waiting', '0', '0']);
  await expectAccessible(page, 'sink made, its key shown once');
  await shot(page, 'sinks-2-made');

  // Rows sent with curl, as the page says, with the key read from the page: the curl's row, another, and one whose id is not a number.
  const sent = await execFileAsync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', sendUrl,
    '-H', `Authorization: Bearer ${key}`, '-H', 'Content-Type: application/json', '-H', 'Idempotency-Key: page-batch-1',
    '-d', JSON.stringify([{ id: 1, msg: 'hello' }, { id: 2, msg: 'two' }, { id: 'x', msg: 'misfit' }])]);
  expect(sent.stdout).toBe('202');
  const rolled = await until('the roll', async () => {
    const got = await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(owner.access));
    return got.body.lag.batches_waiting === 0 && got.body.last_roll ? got.body : null;
  });
  expect(rolled.last_roll).toMatchObject({ rows: 2, rejected_rows: 1, batches: 1 });
  const [reject] = rolled.rejects.recent[0].examples;
  expect(reject).toMatchObject({ batch_id: 'page-batch-1', line: 3, raw: '{"id":"x","msg":"misfit"}' });

  // The list, reloaded, counts them; the sink's page explains the reject with its reason and the row as sent.
  await page.reload();
  await drawn(page);
  expect(await row.locator('td').nth(6).textContent()).toBe('1');
  expect(await row.locator('td').nth(5).textContent()).toBe('3');
  expect(await row.locator('td').nth(3).textContent()).toContain('2 rows appended, 1 rejected, from 1 batch');
  await row.getByRole('link', { name: 'clicks' }).click();
  expect(await drawn(page)).toBe('Sink clicks');
  expect(page.url()).toContain(`sink=${sink.sink_id}`);
  expect(await fact(page, 'Rows in the table')).toBe('2');
  expect(await fact(page, 'Last roll')).toContain(`2 rows appended, 1 rejected, from 1 batch in ${rolled.last_roll.seconds} s`);
  expect(await fact(page, 'Rejected at rolls')).toBe('1 row in 1 reject file');
  const rejects = page.locator('section[aria-labelledby="rejects-title"]');
  expect(await rejects.locator('table').first().locator('tbody td').allTextContents()).toEqual([reject.reason, '1']);
  expect(await rejects.locator('table').nth(1).locator('tbody td').allTextContents()).toEqual(['page-batch-1', '3', reject.reason, '{"id":"x","msg":"misfit"}']);
  expect(reject.reason).toMatch(/^column id \(long\)/);
  await expectAccessible(page, 'a sink with a reject');
  await shot(page, 'sinks-3-detail');

  // A batch tested in the box: each row's verdict, in the API's words.
  const tried = [{ id: 5, msg: 'fits' }, { msg: 'no id' }, { id: 'y' }];
  const verdict = (await gateway().post(`/v1/sinks/${sink.sink_id}/test`).set(bearer(owner.access)).send(tried)).body;
  await page.getByLabel('Rows to test').fill(tried.map((r) => JSON.stringify(r)).join('\n'));
  await page.getByRole('button', { name: 'Test the batch' }).click();
  await page.getByRole('heading', { name: '1 of 3 rows fit; 2 do not' }).waitFor();
  const why = (i: number) => verdict.reasons.find((r: { index: number }) => r.index === i).reason;
  expect(await page.locator('tr[data-verdict]').evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll('td')].map((td) => td.textContent)))).toEqual([
    ['1', '{"id":5,"msg":"fits"}', 'fits'],
    ['2', '{"msg":"no id"}', `does not fit: ${why(1)} (would be rejected at the roll)`],
    ['3', '{"id":"y"}', `does not fit: ${why(2)} (would be rejected at the roll)`],
  ]);
  expect(why(1)).toBe('required column id is missing');
  await expectAccessible(page, 'a tested batch');
  await shot(page, 'sinks-4-tested');

  // A device token: its URL shown once takes a post; revoked, the URL is refused.
  await page.getByRole('button', { name: 'Make a device token' }).click();
  const device = page.locator('section[aria-labelledby="device-title"]');
  await device.getByText('Copy the device URL now: Floe shows it only this once.').waitFor();
  const deviceUrl = (await device.locator('.once code').textContent())!;
  expect(deviceUrl).toMatch(/\/d\/fdt_[\w-]+$/);
  expect(await fact(page, 'URL')).toMatch(/\/d\/<token shown once>$/);
  expect((await fetch(deviceUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":7}' })).status).toBe(202);
  await expectAccessible(page, 'a device token made');
  await shot(page, 'sinks-5-device');
  await device.getByRole('button', { name: 'Revoke the device token' }).click();
  await device.getByRole('status').filter({ hasText: 'Device token revoked.' }).waitFor();
  await device.getByText('No device URL: device posts to this sink are refused.').waitFor();
  expect(await device.locator('.once').count()).toBe(0);
  expect((await fetch(deviceUrl, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{"id":8}' })).status).toBe(401);

  // On a phone: the list and the sink, still readable and accessible.
  const phone = await signedInPage(browser(), owner, `${listAt}&sink=${sink.sink_id}`, { width: 390 });
  expect(await drawn(phone)).toBe('Sink clicks');
  await expectAccessible(phone, 'a sink at 390 px');
  await shot(phone, 'sinks-6-phone-detail');
  await phone.goto(page.url().replace(/&sink=.*$/, ''));
  await drawn(phone);
  await expectAccessible(phone, 'the sinks at 390 px');
  await shot(phone, 'sinks-7-phone-list');
  await phone.close();

  // A member reads the sinks and tests a batch, but is offered no making, device token or deleting.
  const reader = await signedInPage(browser(), member, listAt);
  expect(await drawn(reader)).toBe('Sinks of lake');
  await reader.locator('tr[data-sink="clicks"]').waitFor();
  await reader.getByText('Your level on lake is read').waitFor();
  expect(await reader.locator('#create-sink').count()).toBe(0);
  await reader.getByRole('link', { name: 'clicks' }).click();
  expect(await drawn(reader)).toBe('Sink clicks');
  await reader.getByRole('button', { name: 'Test the batch' }).waitFor();
  expect(await reader.getByRole('button', { name: /device token|Delete sink/ }).count()).toBe(0);
  await expectAccessible(reader, 'a sink as a member');
  await shot(reader, 'sinks-8-member');
  await reader.close();

  // Another organisation's person, with the owner's ids (or their own catalog and the owner's sink): Not found, nothing of it.
  const other = await signedInPage(browser(), stranger, `${listAt}&sink=${sink.sink_id}`);
  await drawn(other);
  await other.getByText('Not found. It does not exist, or it is not yours to see.').waitFor();
  await expectAccessible(other, 'another organisation\'s sink');
  await shot(other, 'sinks-9-stranger');
  await other.goto(`${stack().base_url}/app/sinks?catalog=${stranger.lake}&sink=${sink.sink_id}`);
  await drawn(other);
  await other.getByText('Not found. It does not exist, or it is not yours to see.').waitFor();
  expect(await other.locator('main').textContent()).not.toMatch(/clicks|fsk_|misfit/);
  await other.close();

  // Deleting asks for the sink's name; then its key is refused.
  await page.getByRole('button', { name: 'Delete sink…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Type clicks to confirm').fill('clicks');
  await expectAccessible(page, 'the delete dialog');
  await shot(page, 'sinks-10-delete');
  await dialog.getByRole('button', { name: 'Delete sink' }).click();
  await page.getByRole('status').filter({ hasText: 'Sink clicks is deleted; 0 waiting batches discarded.' }).waitFor();
  await expectAccessible(page, 'a sink deleted');
  await shot(page, 'sinks-11-deleted');
  expectError(await gateway().get(`/v1/sinks/${sink.sink_id}`).set(bearer(owner.access)), 404, 'sink_not_found');
  const late = await fetch(sendUrl, { method: 'POST', headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'page-batch-2' }, body: '[{"id":9}]' });
  expect(late.status).toBe(404);
  await page.close();
}, 120_000);
