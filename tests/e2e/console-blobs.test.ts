// The console's blobs page, in Chromium: a person uploads a file with the
// file input and another into a folder by dropping it, sees both with their
// sizes, opens the folder, downloads the file and takes a presigned link from
// the page (both give the uploaded bytes), deletes a file; makes an uploader
// (its secret shown once) and revokes it; adds a lifecycle rule and clears
// the rules. A file over the API's limit is refused on the page with the
// command to use. A stranger with the catalog's id sees "Not found" and no
// file; a member (read level) browses and downloads and is offered nothing
// more. Accessible in each state, also at a phone's width. Screenshots under
// .data/artifacts/pages.
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright-core';
import { bearer, gateway } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { drawn, expectAccessible, signedInPage } from '../support/console';
import { personWithPassword } from '../support/people';

const browser = chromiumForFile();
const shot = screenshots('pages');

const NOTES = Buffer.from('Notes from the blobs page: the first file.\n');
const REPORT = Buffer.from(Array.from({ length: 2345 }, (_, i) => String.fromCharCode(97 + (i % 26))).join(''));

/** Every key and size in the blob bucket, through the API. */
async function stored(person: { access: string }, lake: string): Promise<Array<[string, number]>> {
  const res = await gateway().get(`/v1/warehouses/${lake}/blobs`).query({ delimiter: '' }).set(bearer(person.access));
  expect(res.status).toBe(200);
  return res.body.objects.map((o: { key: string; size: number }) => [o.key, o.size]);
}

/** Clicks a Download button: the file comes through a new tab (which closes), the page stays; its name and bytes. */
async function downloadBy(page: Page, button: string): Promise<{ name: string; bytes: Buffer }> {
  const download = new Promise<Download>((resolve) => {
    page.on('download', resolve);
    page.context().on('page', (tab) => tab.on('download', resolve));
  });
  await page.getByRole('button', { name: button }).click();
  const done = await download;
  return { name: done.suggestedFilename(), bytes: readFileSync((await done.path())!) };
}

/** Answers the dialog that is open with its `button`, and waits for it to go. */
async function confirm(page: Page, button: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.getByRole('button', { name: button, exact: true }).click();
  await dialog.waitFor({ state: 'detached' });
}

test('upload by input and by drop, browse a folder, download through a presigned link, delete; an uploader; a lifecycle rule', async () => {
  const person = await personWithPassword('blobs', 'a blobs passphrase 123');
  const page = await signedInPage(browser(), person, `/app/blobs?catalog=${person.lake}`);
  expect(await drawn(page)).toBe('Blobs in lake');
  await page.getByText('No files here yet.').waitFor();
  await page.getByText('No uploaders.').waitFor();
  await page.getByText('No rules: nothing in the blob bucket expires.').waitFor();
  await expectAccessible(page, 'blobs, empty');
  await shot(page, 'blobs-1-empty');

  // The file input (the keyboard's way), at the top of the bucket.
  await page.getByLabel('Or choose files').setInputFiles({ name: 'notes.txt', mimeType: 'text/plain', buffer: NOTES });
  const notesUpload = page.locator('.uploads li[data-key="notes.txt"]');
  await notesUpload.getByText(`Stored as notes.txt (${NOTES.length} B).`).waitFor();
  expect(await notesUpload.locator('progress').evaluate((p: HTMLProgressElement) => p.value)).toBe(100);
  expect(await notesUpload.getByText('100 %').count()).toBe(1);

  // A drop into a folder: the zone shows it is a target while something is dragged over it.
  await page.getByLabel('Upload into folder').fill('reports');
  const dropped = await page.evaluateHandle(({ name, text }) => {
    const data = new DataTransfer();
    data.items.add(new File([text], name, { type: 'text/csv' }));
    return data;
  }, { name: 'q1.csv', text: REPORT.toString('latin1') });
  await page.dispatchEvent('.dropzone', 'dragenter', { dataTransfer: dropped });
  await page.dispatchEvent('.dropzone', 'dragover', { dataTransfer: dropped });
  expect(await page.locator('.dropzone.over').count()).toBe(1);
  await page.dispatchEvent('.dropzone', 'drop', { dataTransfer: dropped });
  expect(await page.locator('.dropzone.over').count()).toBe(0);
  await page.locator('.uploads li[data-key="reports/q1.csv"]').getByText('Stored as reports/q1.csv (2.3 KB).').waitFor();

  // A file over the API's limit is not sent; the page names the command that takes it.
  await page.getByLabel('Or choose files').setInputFiles({ name: 'big.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(1_000_001) });
  await page.locator('.uploads li[data-key="reports/big.bin"]').getByText('floe blobs put lake big.bin reports/big.bin').waitFor();
  expect(await stored(person, person.lake)).toEqual([['notes.txt', NOTES.length], ['reports/q1.csv', REPORT.length]]);

  // The listing: the folder, and the file with its size.
  const notesRow = page.locator('tr[data-key="notes.txt"]');
  await notesRow.waitFor();
  expect(await notesRow.getAttribute('data-size')).toBe(String(NOTES.length));
  expect(await notesRow.locator('td').nth(1).textContent()).toBe(`${NOTES.length} B`);
  await page.locator('tr[data-folder="reports/"]').waitFor();
  expect(await page.locator('main').textContent()).not.toMatch(/\bnull\b|undefined/);
  await expectAccessible(page, 'blobs, uploaded');
  await shot(page, 'blobs-2-uploaded');

  // Into the folder; the path shows where the person is.
  await page.getByRole('link', { name: 'reports/' }).click();
  await page.waitForURL(/prefix=reports%2F/);
  expect(await drawn(page)).toBe('Blobs in lake');
  expect(await page.getByRole('navigation', { name: 'Folder path' }).locator('[aria-current="location"]').textContent()).toBe('reports');
  const reportRow = page.locator('tr[data-key="reports/q1.csv"]');
  expect(await reportRow.locator('td').nth(1).textContent()).toBe('2.3 KB');
  expect(await reportRow.getAttribute('data-size')).toBe(String(REPORT.length));
  expect(await page.locator('tr[data-key="notes.txt"]').count()).toBe(0);

  // A presigned link from the page: an hour long, and its bytes are the uploaded ones.
  await page.getByRole('button', { name: 'Copy link to q1.csv' }).click();
  const linkOut = page.locator('.link-out');
  await linkOut.getByText('Link to reports/q1.csv').waitFor();
  expect(await linkOut.textContent()).toContain('Anyone holding this link can download the file for 1 hour, until');
  const url = (await linkOut.locator('code').textContent())!;
  const fetched = await fetch(url);
  expect(fetched.status).toBe(200);
  expect(Buffer.from(await fetched.arrayBuffer()).equals(REPORT)).toBe(true);
  const saved = await downloadBy(page, 'Download q1.csv');
  expect(saved.name).toBe('q1.csv');
  expect(saved.bytes.equals(REPORT)).toBe(true);
  expect(page.url()).toMatch(/\/app\/blobs\?catalog=.*prefix=reports%2F$/);
  await expectAccessible(page, 'blobs, a folder with a link');
  await shot(page, 'blobs-3-folder-link');

  // Delete, after a confirmation.
  await page.getByRole('button', { name: 'Delete q1.csv' }).click();
  await page.getByRole('dialog').getByText('reports/q1.csv is deleted from the blob bucket for good').waitFor();
  await expectAccessible(page, 'blobs, delete dialog');
  await shot(page, 'blobs-4-delete-dialog');
  await confirm(page, 'Delete');
  await page.getByText('Deleted reports/q1.csv.').waitFor();
  await page.getByText('No files under reports/.').waitFor();
  expect(await stored(person, person.lake)).toEqual([['notes.txt', NOTES.length]]);

  // An uploader: made with its secret shown once, then revoked.
  await page.getByRole('link', { name: 'All files' }).click();
  await drawn(page);
  await page.getByLabel('Name', { exact: true }).fill('camera-1');
  await page.getByLabel('May write under').fill('cameras/one/');
  await page.getByRole('button', { name: 'Make uploader' }).click();
  await page.getByText('Copy the secret access key now: Floe shows it only this once.').waitFor();
  const listed = await gateway().get(`/v1/warehouses/${person.lake}/uploaders`).set(bearer(person.access));
  expect(listed.body.uploaders).toEqual([expect.objectContaining({ name: 'camera-1', prefix: 'cameras/one/', status: 'active', list: false })]);
  const uploaderRow = page.locator('tr[data-uploader="camera-1"]');
  expect(await uploaderRow.locator('code').textContent()).toBe(listed.body.uploaders[0].access_key_id);
  expect((await page.locator('.made code.secret').first().textContent())!.length).toBeGreaterThan(20);
  await expectAccessible(page, 'blobs, uploader made');
  await shot(page, 'blobs-5-uploader');
  await page.getByRole('button', { name: 'Revoke uploader camera-1' }).click();
  await confirm(page, 'Revoke');
  await page.getByText('Revoked camera-1.').waitFor();
  await uploaderRow.waitFor({ state: 'detached' });
  expect(await page.locator('.made').count()).toBe(0);
  const revoked = await gateway().get(`/v1/warehouses/${person.lake}/uploaders`).query({ include_revoked: 'true' }).set(bearer(person.access));
  expect(revoked.body.uploaders.map((u: { name: string; status: string }) => [u.name, u.status])).toEqual([['camera-1', 'revoked']]);

  // A lifecycle rule, then none.
  await page.getByLabel('Folder the rule covers').fill('tmp/');
  await page.getByLabel('Expire files after (days)').fill('7');
  await page.getByRole('button', { name: 'Add rule' }).click();
  await page.getByText('Rule added; 1 rule now.').waitFor();
  expect(await page.locator('tr[data-rule="rule-1"]').textContent()).toContain('expire 7 days after upload');
  expect((await gateway().get(`/v1/warehouses/${person.lake}/lifecycle`).set(bearer(person.access))).body.rules)
    .toEqual([expect.objectContaining({ id: 'rule-1', prefix: 'tmp/', expire_days: 7, enabled: true })]);
  await expectAccessible(page, 'blobs, a lifecycle rule');
  await shot(page, 'blobs-6-lifecycle');
  await page.getByRole('button', { name: 'Clear all rules' }).click();
  await confirm(page, 'Clear rules');
  await page.getByText('Removed 1 rule; nothing expires now.').waitFor();
  await page.getByText('No rules: nothing in the blob bucket expires.').waitFor();
  expect((await gateway().get(`/v1/warehouses/${person.lake}/lifecycle`).set(bearer(person.access))).body).toMatchObject({ configured: false, rules: [] });
  await page.close();

  // A phone's width.
  const phone = await signedInPage(browser(), person, `/app/blobs?catalog=${person.lake}`, { width: 390 });
  await drawn(phone);
  await phone.locator('tr[data-key="notes.txt"]').waitFor();
  await expectAccessible(phone, 'blobs at a phone width');
  await shot(phone, 'blobs-7-phone');
  await phone.close();
}, 90_000);

test('blobs: a stranger sees Not found and no file; a member browses and downloads, and is offered nothing more', async () => {
  const owner = await personWithPassword('blobs-owner', 'a blobs passphrase 456');
  const other = await personWithPassword('blobs-other', 'a blobs passphrase 789');
  const up = await gateway().post(`/v1/warehouses/${owner.lake}/blobs/upload`).query({ key: 'plans/secret-plan.txt' })
    .set(bearer(owner.access)).set('Content-Type', 'text/plain').send('the plan');
  expect(up.status).toBe(201);

  const stranger = await signedInPage(browser(), other, `/app/blobs?catalog=${owner.lake}&prefix=plans%2F`);
  await drawn(stranger);
  await stranger.getByText('Not found. It does not exist, or it is not yours to see.').waitFor();
  expect(await stranger.getByText('secret-plan').count()).toBe(0);
  expect(await stranger.locator('.dropzone').count()).toBe(0);
  await expectAccessible(stranger, 'blobs, another organisation’s catalog');
  await shot(stranger, 'blobs-8-not-found');
  await stranger.close();

  // The same person as a member of the owner's organisation: read level.
  const invited = await gateway().post(`/v1/orgs/${owner.org.org_id}/invitations`).set(bearer(owner.access)).send({ email: other.email, role: 'member' });
  expect(invited.status).toBe(201);
  expect((await gateway().post('/v1/orgs/invitations/accept').set(bearer(other.access)).send({ token: invited.body.token })).status).toBe(200);
  const member = await signedInPage(browser(), other, `/app/blobs?catalog=${owner.lake}&prefix=plans%2F`, { width: 390 });
  expect(await drawn(member)).toBe('Blobs in lake');
  const row = member.locator('tr[data-key="plans/secret-plan.txt"]');
  expect(await row.locator('td').nth(1).textContent()).toBe('8 B');
  await member.getByText('You can browse and download; uploading, deleting, uploaders and lifecycle rules need write level on this catalog.').waitFor();
  await row.getByRole('button', { name: 'Download secret-plan.txt' }).waitFor();
  expect(await row.getByRole('button', { name: 'Delete secret-plan.txt' }).count()).toBe(0);
  for (const offer of ['.dropzone', '#uploader-form', '#lifecycle-form']) expect(await member.locator(offer).count()).toBe(0);
  expect(await member.locator('main').textContent()).not.toMatch(/\bnull\b|undefined/);
  await row.getByRole('button', { name: 'Copy link to secret-plan.txt' }).click();
  const url = (await member.locator('.link-out code').textContent())!;
  expect(await (await fetch(url)).text()).toBe('the plan');
  await expectAccessible(member, 'blobs as a member at a phone width');
  await shot(member, 'blobs-9-member-phone');
  await member.close();
}, 90_000);
