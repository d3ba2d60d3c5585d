import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromiumForFile, screenshots } from '../support/browser';
import { gateway } from './control-plane-helpers';
import { stack } from './helpers';

// The API's description as a reader finds it: GET /v1/openapi.json (the
// committed document, exactly), and the reference page at /docs/api rendered
// by the gateway's own Swagger UI in Chromium, with nothing fetched from
// anywhere but the stack and nothing refused by the page's policy.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const browser = chromiumForFile();
const shot = screenshots('api-reference');

test('GET /v1/openapi.json: the committed document, no credential needed', async () => {
  const res = await gateway().get('/v1/openapi.json');
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(res.body).toEqual(JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')));
  expect(res.body.openapi).toBe('3.1.0');
  expect(res.body.paths['/v1/api-keys'].post.operationId).toBe('createApiKey');
});

test('GET /docs/api: the reference renders every resource from the document, all from this origin', async () => {
  const page = await browser().newPage();
  const origin = new URL(stack().base_url).origin;
  const foreign: string[] = [];
  const problems: string[] = [];
  page.on('request', (r) => { if (!r.url().startsWith(origin) && !r.url().startsWith('data:')) foreign.push(r.url()); });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text()}`); });
  try {
    const res = await page.goto(`${stack().base_url}/docs/api`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("default-src 'self'");
    // Swagger UI parses the whole document (about 2 MB) before it draws: most of a loaded machine's half-minute.
    await page.waitForSelector('.opblock-tag-section', { timeout: 60_000 });
    expect(await page.title()).toBe('Floe API reference');
    const tags = await page.$$eval('.opblock-tag', (els) => els.map((e) => e.getAttribute('data-tag')));
    const doc = (await gateway().get('/v1/openapi.json')).body as { tags: Array<{ name: string }> };
    expect(tags).toEqual(doc.tags.map((t) => t.name));
    // One resource opened: its operations listed with their paths.
    await page.click('.opblock-tag[data-tag="API keys"]');
    await page.waitForSelector('.opblock-summary-path');
    const paths = await page.$$eval('.opblock-summary-path', (els) => els.map((e) => e.getAttribute('data-path')));
    expect(paths).toEqual(expect.arrayContaining(['/v1/api-keys', '/v1/api-keys/{key_id}']));
    await shot(page, 'reference');
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  } finally {
    await page.close();
  }
}, 120_000);

test('the reference serves only its own files and Swagger UI\'s two', async () => {
  expect((await gateway().get('/docs/api/assets/swagger-ui-bundle.js')).status).toBe(200);
  expect((await gateway().get('/docs/api/assets/package.json')).status).toBe(404);
  expect((await gateway().get('/docs/api/assets/../../../package.json')).status).toBe(404);
  expect((await gateway().get('/docs/api/reference.js')).headers['content-security-policy']).toContain("default-src 'self'");
});
