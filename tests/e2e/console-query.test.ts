import type { Locator, Page } from 'playwright-core';
import { appendRows, type TableRef } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, gateway, redis, stack } from './helpers';
import { chromiumForFile, screenshots } from '../support/browser';
import { bytesWords, drawn, expectAccessible, signedInPage } from '../support/console';
import { personWithPassword } from '../support/people';

// The query box on the console's table page in headless Chromium: a table
// with rows an engine appended; the box starts with the table's first 100
// rows, which run as they are (the Run button) and show exactly the rows
// appended, each column's type under its name, a value that looks like HTML
// as text; a count run with Ctrl+Enter; a table past the answer's row cap
// says it is truncated; a statement that is not read-only is refused inline
// in the API's words; a busy organisation is told when to try again; an
// older snapshot picked from the page's timeline is read at that snapshot.
// What the page shows is held against the API's answer to the page's own
// call. Screenshots under .data/artifacts/pages.

const browser = chromiumForFile();
const shot = screenshots('pages');
const PASSWORD = 'a query box passphrase 1';
const schema = { type: 'struct', fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'note', required: false, type: 'string' }] };

/** The answer to the page's own POST /v1/query while `act` runs it, once the page has drawn it (its status no longer "Running…"). */
async function ran(page: Page, box: Locator, act: () => Promise<void>) {
  const [res] = await Promise.all([page.waitForResponse((r) => r.url().endsWith('/v1/query') && r.request().method() === 'POST'), act()]);
  const answer = { status: res.status(), body: await res.json(), sent: res.request().postDataJSON() };
  await page.waitForFunction((el) => !!el?.textContent && el.textContent !== 'Running the statement…', await box.locator('.query-status').elementHandle());
  return answer;
}

/** The answer's facts by term, in the query section only (the page's other sections have facts of their own). */
const fact = (box: Locator, term: string) => box.locator(`dl.facts dt:text-is("${term}") + dd`).textContent();

/** The rows of the answer's table, each as its cells' text. */
const cells = (box: Locator) => box.locator('.query-answer tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent)));
const headers = async (box: Locator) => ({
  names: await box.locator('.query-answer thead th .column-name').allTextContents(),
  types: await box.locator('.query-answer thead th .column-type').allTextContents(),
});

test('the query box: the first rows, a count, a truncated answer, a refusal, busy, and an older snapshot', async () => {
  const owner = await personWithPassword('query', PASSWORD);
  const api = gateway();
  for (const name of ['orders', 'many']) {
    expect((await api.post('/v1/tables').set(bearer(owner.access)).send({ warehouse_id: owner.lake, namespace: 'sales', name, schema })).status).toBe(201);
  }
  const w = (await api.get(`/v1/warehouses/${owner.lake}`).set(bearer(owner.access))).body;
  const credential = (await api.get('/v1/connection').query({ warehouse: owner.lake, level: 'write' }).set(bearer(owner.access))).body.catalog_credential;
  const ref: TableRef = { warehouseId: owner.lake, bucket: w.bucket, token: await token(credential.client_id, credential.client_secret), namespace: 'sales', table: 'orders' };
  const first = await appendRows(ref, [{ id: 1n, note: 'one' }, { id: 2n, note: '<b>two</b>' }, { id: 3n, note: null }]);
  await appendRows({ ...ref, table: 'many' }, Array.from({ length: 2001 }, (_, i) => ({ id: BigInt(i + 1), note: `n${i + 1}` })));

  const page = await signedInPage(browser(), owner, `/app/table?catalog=${owner.lake}&table=sales.orders`);
  expect(await drawn(page)).toBe('sales.orders');
  const box = page.locator('section[aria-labelledby="query-title"]');
  const statement = box.getByLabel('Statement');
  expect(await statement.inputValue()).toBe('SELECT * FROM sales.orders LIMIT 100');
  // One snapshot: the picker offers the current one and it.
  expect(await box.getByLabel('Read at snapshot').locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['', String(first.snapshotId)]);
  await expectAccessible(page, 'the table page with its query box');

  // The statement it starts with, as it is: the rows appended, in the file's order, NULL and HTML-like text as text.
  const rows = await ran(page, box, () => box.getByRole('button', { name: 'Run', exact: true }).click());
  expect(rows.status).toBe(200);
  expect(rows.sent).toEqual({ warehouse: owner.lake, sql: 'SELECT * FROM sales.orders LIMIT 100' });
  expect(rows.body).toMatchObject({
    columns: [{ name: 'id', type: 'BIGINT' }, { name: 'note', type: 'VARCHAR' }], row_count: 3, truncated: false,
    snapshot_ids: { 'sales.orders': String(first.snapshotId) }, files_scanned: 1,
  });
  expect(await box.locator('.query-status').textContent()).toBe(`3 rows in ${rows.body.elapsed_ms} ms.`);
  expect(await headers(box)).toEqual({ names: ['id', 'note'], types: ['BIGINT', 'VARCHAR'] });
  expect(await box.locator('.query-answer thead th[scope="col"]').count()).toBe(2);
  expect(await cells(box)).toEqual([['1', 'one'], ['2', '<b>two</b>'], ['3', 'NULL']]);
  expect(await box.locator('.query-answer tbody b').count()).toBe(0);
  expect(await fact(box, 'Rows returned')).toBe('3');
  const t = rows.body.timing;
  expect(await fact(box, 'Elapsed')).toBe(`${rows.body.elapsed_ms} ms (waiting ${t.queued_ms} ms, reading files ${t.fetch_ms} ms, running ${t.run_ms} ms)`);
  expect(await fact(box, 'Scanned')).toBe(`${bytesWords(rows.body.bytes_scanned)} in 1 file`);
  expect(rows.body.bytes_scanned).toBeGreaterThan(0);
  expect(await fact(box, 'Snapshot read')).toBe(`sales.orders at ${first.snapshotId}`);
  expect(await fact(box, 'Statement run')).toBe(rows.body.statement);
  expect(await box.locator('.truncated').count()).toBe(0);
  await expectAccessible(page, 'a query answered');
  await shot(page, 'query-1-first-rows');

  // A count, run from the keyboard.
  await statement.fill('SELECT count(*) AS n FROM sales.orders');
  const count = await ran(page, box, () => statement.press('Control+Enter'));
  expect(count.status).toBe(200);
  expect(count.body).toMatchObject({ columns: [{ name: 'n', type: 'BIGINT' }], rows: [{ n: '3' }], row_count: 1, truncated: false });
  expect(await box.locator('.query-status').textContent()).toBe(`1 row in ${count.body.elapsed_ms} ms.`);
  expect(await headers(box)).toEqual({ names: ['n'], types: ['BIGINT'] });
  expect(await cells(box)).toEqual([['3']]);
  expect(await fact(box, 'Rows returned')).toBe('1');

  // Past the answer's 2,000 rows: the first 2,000, and the notice.
  await statement.fill('SELECT id FROM sales.many ORDER BY id');
  const many = await ran(page, box, () => statement.press('Control+Enter'));
  expect(many.status).toBe(200);
  expect(many.body).toMatchObject({ row_count: 2000, truncated: true, limit: 2000 });
  expect(await fact(box, 'Rows returned')).toBe('2000 (truncated)');
  expect(await box.locator('.query-status').textContent()).toBe(`2000 rows (truncated) in ${many.body.elapsed_ms} ms.`);
  expect(await box.locator('.truncated').textContent()).toBe(
    `Truncated: more rows matched than came back. An answer stops at 2000 rows or ${bytesWords(many.body.byte_limit)} of rows; narrow the statement (a filter, a LIMIT) or read the table with an engine.`);
  expect(await box.locator('.query-answer tbody tr').count()).toBe(2000);
  expect((await cells(box)).at(-1)).toEqual(['2000']);
  await shot(page, 'query-2-truncated');

  // Not a read-only SELECT: refused inline in the API's words, with the request id; no answer left on the page.
  await statement.fill('DROP TABLE sales.orders');
  const drop = await ran(page, box, () => box.getByRole('button', { name: 'Run', exact: true }).click());
  expect(drop.status).toBe(400);
  expect(drop.body.error).toMatchObject({ code: 'invalid_value', field: 'sql' });
  expect(await box.locator('form [role="alert"]').textContent()).toBe(`${drop.body.error.message} (request ${drop.body.error.request_id})`);
  expect(await box.locator('.query-status').textContent()).toBe('The statement did not run.');
  expect(await box.locator('.query-answer').textContent()).toBe('');
  expect((await api.get('/v1/table').query({ warehouse: owner.lake, namespace: 'sales', name: 'orders' }).set(bearer(owner.access))).status).toBe(200);
  await expectAccessible(page, 'a statement refused');
  await shot(page, 'query-3-refused');

  // The organisation's share of statements taken (admission.ts's places, held in Redis): busy, and when to try again.
  const places = `${stack().redis_prefix}query:places:${owner.org.org_id}`;
  const r = redis();
  try {
    const lapse = Date.now() + 120_000;
    await r.zadd(places, ...Array.from({ length: 1000 }, (_, i) => [lapse, `held-${i}`]).flat());
    await statement.fill('SELECT count(*) AS n FROM sales.orders');
    const busy = await ran(page, box, () => statement.press('Control+Enter'));
    expect(busy.status).toBe(429);
    expect(busy.body.error).toMatchObject({ code: 'busy', retry_after_seconds: expect.any(Number) });
    const n = busy.body.error.retry_after_seconds;
    expect(await box.locator('form [role="alert"]').textContent())
      .toBe(`${busy.body.error.message} Try again in ${n} ${n === 1 ? 'second' : 'seconds'}. (request ${busy.body.error.request_id})`);
    await shot(page, 'query-4-busy');
  } finally {
    await r.del(places);
    r.disconnect();
  }

  // A second snapshot; the page drawn again lists both, and the older one is read when picked.
  const second = await appendRows(ref, [{ id: 4n, note: 'four' }]);
  await page.reload();
  await drawn(page);
  const picker = box.getByLabel('Read at snapshot');
  expect(await picker.locator('option').evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value))).toEqual(['', String(second.snapshotId), String(first.snapshotId)]);
  await statement.fill('SELECT count(*) AS n FROM sales.orders');
  await picker.selectOption(String(first.snapshotId));
  const older = await ran(page, box, () => box.getByRole('button', { name: 'Run', exact: true }).click());
  expect(older.sent).toEqual({ warehouse: owner.lake, sql: 'SELECT count(*) AS n FROM sales.orders', snapshot_id: String(first.snapshotId) });
  expect(older.body).toMatchObject({ rows: [{ n: '3' }], snapshot_ids: { 'sales.orders': String(first.snapshotId) } });
  expect(await cells(box)).toEqual([['3']]);
  expect(await fact(box, 'Snapshot read')).toBe(`sales.orders at ${first.snapshotId}`);
  await picker.selectOption('');
  const current = await ran(page, box, () => box.getByRole('button', { name: 'Run', exact: true }).click());
  expect(current.sent).toEqual({ warehouse: owner.lake, sql: 'SELECT count(*) AS n FROM sales.orders' });
  expect(await cells(box)).toEqual([['4']]);
  expect(await fact(box, 'Snapshot read')).toBe(`sales.orders at ${second.snapshotId}`);
  await page.close();

  // On a phone: the box and an answer.
  const phone = await signedInPage(browser(), owner, `/app/table?catalog=${owner.lake}&table=sales.orders`, { width: 390 });
  expect(await drawn(phone)).toBe('sales.orders');
  const small = phone.locator('section[aria-labelledby="query-title"]');
  await ran(phone, small, () => small.getByRole('button', { name: 'Run', exact: true }).click());
  // Two files now: the statement has no ORDER BY, so the rows are compared in id order.
  expect((await cells(small)).sort((a, b) => Number(a[0]) - Number(b[0]))).toEqual([['1', 'one'], ['2', '<b>two</b>'], ['3', 'NULL'], ['4', 'four']]);
  await expectAccessible(phone, 'a query answered at 390 px');
  await shot(phone, 'query-5-phone');
  await phone.close();
}, 240_000);
