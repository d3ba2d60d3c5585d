import { bearer, gateway, sql, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { bytesWords, drawn, expectAccessible, fact, pageUrl, signedInPage } from '../support/console';
import { invitedMemberWithPassword, personWithPassword } from '../support/people';
import { until } from '../support/poll';

// The console's catalog pages in headless Chromium: a person goes from Home
// to their catalog `lake`, reads its facts against the API, copies an
// engine's recipe (the API's recipe exactly), creates a table through the
// form and opens it (schema, the empty state, then rows a sink rolled in:
// the snapshot timeline as the API lists it, the sort order, and the sink
// feeding it); a nested schema is drawn nested; the credentials are rotated
// (the new pair shown once, the recipe following it); the catalog is made
// public and private again; it is deleted with its name typed, listed among
// the deleted, restored and ready again. A member reads without any action
// offered; another organisation's person sees "Not found" and none of it.
// Screenshots under .data/artifacts/pages.

const browser = chromiumForFile();
const shot = screenshots('pages');
const PASSWORD = 'a catalog page passphrase 1';
const NOT_FOUND = 'Not found. It does not exist, or it is not yours to see.';
/** Under a new credential pair (rotated or restored): where to find it again. */
const PAIR_AGAIN = 'The connection recipes on the catalog\'s page always hold the current pair.';



/** A count with its noun, as the console writes it (table.js `plural`). */
const plural = (n: number, one: string) => `${n} ${n === 1 ? one : `${one}s`}`;


test('a catalog: facts, a recipe copied, a table made and opened, rotate, public and private, delete and restore; a member reads; a stranger sees Not found', async () => {
  const [owner, stranger] = await Promise.all([personWithPassword('catalog', PASSWORD), personWithPassword('catalogx', PASSWORD)]);
  const api = { get: (path: string) => gateway().get(path).set(bearer(owner.access)) };
  const nested = {
    type: 'struct', fields: [
      { id: 1, name: 'id', required: true, type: 'long' },
      { id: 2, name: 'tags', required: false, type: { type: 'list', 'element-id': 3, element: 'string', 'element-required': false } },
      { id: 4, name: 'loc', required: false, type: { type: 'struct', fields: [
        { id: 5, name: 'lat', required: true, type: 'double' },
        { id: 6, name: 'attrs', required: false, type: { type: 'map', 'key-id': 7, key: 'string', 'value-id': 8, value: 'long', 'value-required': false } },
      ] } },
    ],
  };
  expect((await gateway().post('/v1/tables').set(bearer(owner.access)).send({ warehouse_id: owner.lake, namespace: 'geo', name: 'places', schema: nested })).status).toBe(201);
  const member = await invitedMemberWithPassword(owner, 'catalog-m', PASSWORD);
  // The creation sample comes a few seconds after the catalog: the page's size is then a measured one.
  await until('the first measurement', async () => ((await api.get(`/v1/warehouses/${owner.lake}`)).body.stored.measured_at ? true : null), 30, 300);

  // Home → the `lake` card → the catalog page; its facts are the API's.
  const page = await signedInPage(browser(), owner, '/app/home');
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack().base_url });
  await drawn(page);
  await page.locator('li.card[data-catalog="lake"]').getByRole('link', { name: 'lake' }).click();
  expect(await drawn(page)).toBe('lake');
  expect(page.url()).toBe(pageUrl(`/app/catalog?catalog=${owner.lake}`));
  // The stack's metering may write a sample while the page draws: the facts are compared with a reading that did not change around a drawing.
  const w = await until('a page drawn between two equal readings', async () => {
    const before = (await api.get(`/v1/warehouses/${owner.lake}`)).body;
    await page.reload();
    await drawn(page);
    const after = (await api.get(`/v1/warehouses/${owner.lake}`)).body;
    return before.stored.measured_at === after.stored.measured_at ? after : null;
  }, 30, 300);
  expect(await fact(page, 'Status')).toBe('ready');
  expect(await fact(page, 'Tier')).toBe('private');
  expect(await fact(page, 'Your level')).toBe('write (admin)');
  expect(await fact(page, 'Table bucket')).toBe(w.bucket);
  expect(await fact(page, 'Blob bucket')).toBe(w.blob_bucket);
  expect(await fact(page, 'Size')).toBe(`${bytesWords(w.stored.bytes)}${w.stored.complete ? '' : ' (at least)'}: tables ${bytesWords(w.stored.table_bytes)}, blobs ${bytesWords(w.stored.blob_bytes)}`);
  expect(await page.locator('dl.facts dt:text-is("Measured") + dd time').getAttribute('datetime')).toBe(w.stored.measured_at);
  expect(await page.locator('dl.facts dt:text-is("Created") + dd time').getAttribute('datetime')).toBe(w.created_at);
  expect(await page.locator('tr[data-table="geo.places"]').count()).toBe(1);
  await expectAccessible(page, 'the catalog page');
  await shot(page, 'catalog-1-overview');

  // The PyIceberg recipe: on the page and in the clipboard, exactly the API's.
  await page.getByLabel('Engine', { exact: true }).selectOption('pyiceberg');
  await page.getByRole('button', { name: 'Copy PyIceberg recipe' }).click();
  await page.locator('.recipe .copied').filter({ hasText: 'Copied.' }).waitFor();
  const recipe = (await api.get(`/v1/connection?warehouse=${owner.lake}&engine=pyiceberg`)).body;
  expect(recipe.level).toBe('write');
  expect(await page.locator('.recipe pre code').textContent()).toBe(recipe.recipe);
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(recipe.recipe);

  // A table through the form, listed at once.
  await page.getByLabel('Table (namespace.name)').fill('events.clicks');
  await page.getByLabel('Columns', { exact: true }).fill('id:long!,msg:string');
  await page.getByRole('button', { name: 'Create the table' }).click();
  await page.getByRole('status').filter({ hasText: 'Table events.clicks created (format version 2).' }).waitFor();
  await page.locator('tr[data-table="events.clicks"]').waitFor();
  const made = (await api.get(`/v1/table?warehouse=${owner.lake}&namespace=events&name=clicks`)).body;
  expect(made.schema).toEqual([{ id: 1, name: 'id', type: 'long', required: true }, { id: 2, name: 'msg', type: 'string', required: false }]);
  await expectAccessible(page, 'a table made');
  await shot(page, 'catalog-2-table-made');

  // A sink feeding it, and two rows it rolls in while the table is looked at.
  const sink = (await gateway().post('/v1/sinks').set(bearer(owner.access)).send({ warehouse_id: owner.lake, table: 'events.clicks', name: 'clicks', inactivity_seconds: 1 })).body;
  expect(sink.send_key).toMatch(/^fsk_/);
  const sent = await fetch(sink.send_url, {
    method: 'POST', headers: { Authorization: `Bearer ${sink.send_key}`, 'Content-Type': 'application/json', 'Idempotency-Key': 'catalog-page-1' },
    body: JSON.stringify([{ id: 1, msg: 'one' }, { id: 2, msg: 'two' }]),
  });
  expect(sent.status).toBe(202);

  // The nested table: fields inside a struct, a list and a map, drawn nested; no snapshot yet.
  await page.locator('tr[data-table="geo.places"]').getByRole('link', { name: 'geo.places' }).click();
  expect(await drawn(page)).toBe('geo.places');
  const places = (await api.get(`/v1/table?warehouse=${owner.lake}&namespace=geo&name=places`)).body;
  const attrs = places.schema.find((f: { name: string }) => f.name === 'loc').type.fields.find((f: { name: string }) => f.name === 'attrs');
  expect(await page.locator('li[data-field="id"] > .field-line').textContent()).toBe(`id long required · id ${places.schema[0].id}`);
  expect(await page.locator('li[data-field="loc.attrs"] > .field-line').textContent()).toBe(`attrs map<string, long> optional · id ${attrs.id}`);
  expect(await page.locator('li[data-field="loc.attrs.value"] > .field-line').textContent()).toBe(`value long optional · id ${attrs.type['value-id']}`);
  expect(await page.locator('li[data-field="tags.element"] > .field-line').textContent()).toContain('element string optional');
  await page.getByText('No snapshots yet: the table holds no data.').waitFor();
  expect(await fact(page, 'Snapshots')).toBe('0');
  await page.getByText('No sink feeds this table.').waitFor();
  await expectAccessible(page, 'a table without snapshots');
  await shot(page, 'catalog-3-table-nested');

  // The sink's table once rolled: its rows and files, the roll on the timeline, the sink linked.
  const rolled = await until('the roll', async () => {
    const got = (await api.get(`/v1/sinks/${sink.sink_id}`)).body;
    return got.last_roll && got.lag.batches_waiting === 0 ? got : null;
  });
  await page.goto(pageUrl(`/app/table?catalog=${owner.lake}&table=events.clicks`));
  expect(await drawn(page)).toBe('events.clicks');
  const clicks = (await api.get(`/v1/table?warehouse=${owner.lake}&namespace=events&name=clicks`)).body;
  expect(clicks.rows).toBe(2);
  expect(await fact(page, 'Rows')).toBe('2');
  expect(await fact(page, 'Data files')).toBe(String(clicks.data_files));
  expect(await fact(page, 'Snapshots')).toBe(String(clicks.snapshots));
  expect(await page.locator('li[data-field="id"] > .field-line').textContent()).toBe('id long required · id 1');
  // The timeline is the API's snapshot log, newest first: the roll's append on top, current, named as the sink's.
  const log = clicks.snapshot_log;
  expect(log.length).toBe(clicks.snapshots);
  expect(log[0]).toMatchObject({ operation: 'append', added_records: 2, total_records: 2, current: true });
  expect(String(log[0].snapshot_id)).toBe(String(rolled.last_roll.snapshot_id));
  const entries = page.locator('ul.timeline > li');
  expect(await entries.evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.snapshot))).toEqual(log.map((s: { snapshot_id: string | number }) => String(s.snapshot_id)));
  const top = entries.first();
  expect(await top.locator('.operation').textContent()).toBe('append');
  expect(await top.locator('time').getAttribute('datetime')).toBe(log[0].committed_at);
  expect(await top.locator('.by').textContent()).toBe('by the sink clicks: 2 rows appended from 1 batch, 0 rejected');
  expect(await top.locator('.change').textContent()).toBe(
    `+2 rows / −0 rows · +${plural(log[0].added_data_files, 'file')} / −${plural(log[0].deleted_data_files ?? 0, 'file')} · +${bytesWords(log[0].added_files_size)} / −${bytesWords(log[0].removed_files_size ?? 0)}`);
  expect(await top.locator('.totals').textContent()).toBe(`After it: 2 rows, ${plural(log[0].total_data_files, 'data file')}, ${bytesWords(log[0].total_files_size)}`);
  const current = page.locator('ul.timeline > li[aria-current="true"]');
  expect(await current.count()).toBe(1);
  expect(await current.getAttribute('data-snapshot')).toBe(String(clicks.current_snapshot_id));
  expect(await current.locator('.badge').textContent()).toBe('current');
  // The layout: no sort order made, so unsorted.
  expect(clicks.sort_order).toEqual({ order_id: 0, fields: [] });
  expect(await page.locator('section[aria-labelledby="sort-title"] .empty').textContent()).toBe('Unsorted (sort order 0).');
  expect(await page.locator('tr[data-sink="clicks"]').getByRole('link', { name: 'clicks' }).getAttribute('href')).toBe(`/app/sinks?catalog=${owner.lake}&sink=${sink.sink_id}`);
  await expectAccessible(page, 'a table with a roll');
  await shot(page, 'catalog-4-table-rolled');

  // Rotate: the new pair shown with copy buttons (not once: the recipe hands it out again), and the recipe on the page now carries it.
  await page.getByRole('link', { name: 'All tables of lake' }).click();
  await drawn(page);
  await page.getByLabel('Engine', { exact: true }).selectOption('pyiceberg');
  await page.getByRole('button', { name: 'Rotate credentials…' }).click();
  await page.getByRole('dialog').getByLabel('Type lake to confirm').fill('lake');
  await page.getByRole('dialog').getByRole('button', { name: 'Rotate credentials' }).click();
  await page.getByText(PAIR_AGAIN).waitFor();
  const fresh = (await api.get(`/v1/connection?warehouse=${owner.lake}&engine=pyiceberg`)).body;
  expect(fresh.catalog_credential.client_id).not.toBe(recipe.catalog_credential.client_id);
  expect(await fact(page, 'Read/write client id')).toBe(fresh.catalog_credential.client_id);
  expect(await page.locator('section[aria-labelledby="credentials-title"] .copyable code.secret').first().textContent()).toBe(fresh.catalog_credential.client_secret);
  await until('the recipe with the new credential', async () => ((await page.locator('.recipe pre code').textContent()) === fresh.recipe ? true : null), 10, 200);
  await expectAccessible(page, 'credentials rotated');
  await shot(page, 'catalog-5-rotated');

  // Public, then private again.
  await page.getByRole('button', { name: 'Make public…' }).click();
  await page.getByRole('dialog').getByLabel('Type lake to confirm').fill('lake');
  await page.getByRole('dialog').getByRole('button', { name: 'Make public' }).click();
  await page.getByRole('status').filter({ hasText: 'Anyone can now read' }).waitFor();
  const published = (await api.get(`/v1/warehouses/${owner.lake}`)).body;
  expect(published.public).toBe(true);
  expect(await fact(page, 'Tier')).toBe('public');
  expect(await page.locator('section[aria-labelledby="public-title"] .copyable code').textContent()).toBe(published.public_url);
  await expectAccessible(page, 'a public catalog');
  await shot(page, 'catalog-6-public');
  await page.getByRole('button', { name: 'Make private' }).click();
  await page.getByRole('status').filter({ hasText: 'Anonymous reads are refused from now on.' }).waitFor();
  expect(await fact(page, 'Tier')).toBe('private');
  expect((await api.get(`/v1/warehouses/${owner.lake}`)).body.public).toBe(false);

  // A member reads the catalog with the read-only recipe, and is offered nothing they cannot do.
  const reader = await signedInPage(browser(), member, `/app/catalog?catalog=${owner.lake}`);
  expect(await drawn(reader)).toBe('lake');
  expect(await fact(reader, 'Your level')).toBe('read (membership)');
  expect(await reader.locator('.recipe p code').first().textContent()).toBe(`${fresh.catalog_credential.client_id}-ro`);
  await reader.locator('tr[data-table="events.clicks"]').waitFor();
  expect(await reader.locator('#create-table').count()).toBe(0);
  expect(await reader.getByRole('button', { name: /Rotate|Make public|Make private|Delete catalog/ }).count()).toBe(0);
  await expectAccessible(reader, 'a catalog as a member');
  await shot(reader, 'catalog-7-member');
  await reader.close();

  // Another organisation's person with the owner's ids: Not found, nothing of the catalog or its tables.
  const other = await signedInPage(browser(), stranger, `/app/catalog?catalog=${owner.lake}`);
  await drawn(other);
  await other.getByText(NOT_FOUND).waitFor();
  expect(await other.locator('main').textContent()).not.toMatch(new RegExp(`lake|${w.bucket}|clicks`));
  await expectAccessible(other, 'another organisation\'s catalog');
  await shot(other, 'catalog-8-stranger');
  await other.goto(pageUrl(`/app/table?catalog=${owner.lake}&table=events.clicks`));
  await drawn(other);
  await other.getByText(NOT_FOUND).waitFor();
  expect(await other.locator('main').textContent()).not.toMatch(/lake|clicks|msg/);
  await other.close();

  // On a phone: the catalog and the table.
  const phone = await signedInPage(browser(), owner, `/app/catalog?catalog=${owner.lake}`, { width: 390 });
  expect(await drawn(phone)).toBe('lake');
  await expectAccessible(phone, 'the catalog at 390 px');
  await shot(phone, 'catalog-9-phone');
  await phone.goto(pageUrl(`/app/table?catalog=${owner.lake}&table=geo.places`));
  expect(await drawn(phone)).toBe('geo.places');
  await expectAccessible(phone, 'a table at 390 px');
  await shot(phone, 'catalog-10-phone-table');

  // Delete with the name typed: it is listed among the deleted catalogs, and comes back on restore.
  await page.getByRole('button', { name: 'Delete catalog…' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Type lake to confirm').fill('lak');
  expect(await dialog.getByRole('button', { name: 'Delete catalog' }).isDisabled()).toBe(true);
  await dialog.getByLabel('Type lake to confirm').fill('lake');
  await expectAccessible(page, 'the delete dialog');
  await shot(page, 'catalog-11-delete');
  await dialog.getByRole('button', { name: 'Delete catalog' }).click();
  await page.waitForURL(/\/app\/catalogs-deleted\?org=/);
  // Held restorable past the stack's 10 s grace, whatever the machine's load.
  await sql(`UPDATE warehouses SET teardown_after = now() + interval '10 minutes' WHERE id = $1`, [owner.lake]);
  expect(await drawn(page)).toBe('Deleted catalogs');
  const tombstone = (await api.get('/v1/warehouses?include_deleted=true')).body.warehouses.find((x: { warehouse_id: string }) => x.warehouse_id === owner.lake);
  expect(tombstone.state).toBe('deleting');
  const row = page.locator('tr[data-catalog="lake"]');
  expect((await row.locator('td').allTextContents()).slice(0, 2)).toEqual(['lake', 'deleting']);
  expect(await row.locator('td time').first().getAttribute('datetime')).toBe(tombstone.requested_at);
  await expectAccessible(page, 'a deleted catalog');
  await shot(page, 'catalog-12-deleted');
  await phone.goto(pageUrl('/app/catalogs-deleted'));
  await drawn(phone);
  await phone.locator('tr[data-catalog="lake"]').waitFor();
  await expectAccessible(phone, 'the deleted catalogs at 390 px');
  // Its old address says it is being deleted, and where to restore it.
  await phone.goto(pageUrl(`/app/catalog?catalog=${owner.lake}`));
  await drawn(phone);
  await phone.getByText('This catalog is being deleted. During its grace period an admin of its organisation can restore it.').waitFor();
  expect(await phone.getByRole('link', { name: 'Deleted catalogs' }).getAttribute('href')).toBe('/app/catalogs-deleted');
  await phone.close();

  await row.getByRole('button', { name: 'Restore lake' }).click();
  await page.getByRole('heading', { name: 'lake is restored' }).waitFor();
  await page.getByText(PAIR_AGAIN).waitFor();
  await page.getByText('No deleted catalogs in their grace period.').waitFor();
  await expectAccessible(page, 'a catalog restored');
  await shot(page, 'catalog-13-restored');
  await page.getByRole('link', { name: 'Open lake' }).click();
  expect(await drawn(page)).toBe('lake');
  expect(await fact(page, 'Status')).toBe('ready');
  await page.locator('tr[data-table="events.clicks"]').waitFor();
  await page.close();
}, 180_000);
