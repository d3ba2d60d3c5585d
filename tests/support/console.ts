// The console's pages as the end-to-end tests drive them: a person's browser
// holding a login session (signed in through the API, stored where the pages
// keep it), and the accessibility check every page passes (axe-core run in
// the page: no serious or critical violation).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, Page } from 'playwright-core';
import { gateway, stack } from '../e2e/helpers';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A page of the stack by path. */
export const pageUrl = (path: string) => `${stack().base_url}${path}`;

/**
 * A new browser page signed in as `person` (a fresh login session through
 * POST /v1/auth/login, kept in localStorage as the login page keeps it),
 * opened at `path`. `width` narrows the window (a phone is 390).
 */
export async function signedInPage(browser: Browser, person: { email: string; password: string }, path: string, { width = 1280 } = {}): Promise<Page> {
  const login = await gateway().post('/v1/auth/login').send({ email: person.email, password: person.password });
  if (login.status !== 200) throw new Error(`login of ${person.email} answered ${login.status}: ${JSON.stringify(login.body)}`);
  const page = await browser.newPage({ viewport: { width, height: 900 } });
  await page.goto(pageUrl('/app/login'));
  await page.evaluate((s) => localStorage.setItem('floe.session', JSON.stringify(s)), {
    access_token: login.body.access_token, refresh_token: login.body.refresh_token, session_id: login.body.session_id, email: person.email,
  });
  await page.goto(pageUrl(path));
  return page;
}

/** Waits until the console page has drawn (its loading state gone) and answers its heading. */
export async function drawn(page: Page): Promise<string> {
  await page.locator('main h1').first().waitFor();
  await page.locator('main .loading').waitFor({ state: 'detached' });
  return (await page.locator('main h1').first().textContent()) ?? '';
}

interface AxeViolation { id: string; impact: string | null; help: string; nodes: Array<{ target: string[] }> }

/** Runs axe-core in the page and fails on any serious or critical violation, naming each with the elements. */
export async function expectAccessible(page: Page, what: string): Promise<void> {
  // Evaluated through the debugging protocol, so the pages' policy (scripts from this origin only) does not block it.
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const run = (window as unknown as { axe: { run: (ctx: Document, opts: object) => Promise<{ violations: AxeViolation[] }> } }).axe.run;
    const result = await run(document, { resultTypes: ['violations'] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) }));
  });
  const grave = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  if (grave.length) {
    throw new Error(`${what}: ${grave.length} serious or critical accessibility violation(s):\n${grave.map((v) => `- ${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`).join('\n')}`);
  }
}

/** The text of the definition after the term `term` in the page's fact lists. */
export const fact = (page: Page, term: string) => page.locator(`dl.facts dt:text-is("${term}") + dd`).first().textContent();

/** Bytes as the console writes them (`bytes` in services/gateway/pages/console.js): the expected words of a figure. */
export function bytesWords(n: number | null): string {
  if (n === null) return '—';
  const units = ['B', 'KB', 'MB', 'GB', 'TB', 'PB'];
  let v = n;
  let i = 0;
  while (v >= 1000 && i < units.length - 1) { v /= 1000; i += 1; }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
