import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

// The pages' tests drive Debian's Chromium headless through playwright-core
// (a browser cannot be downloaded here) and keep a screenshot of each step
// under .data/artifacts/<folder>.

/** One browser for a test file: launched before its tests, closed after them; the function returned gives it. */
export function chromiumForFile(): () => Browser {
  let browser: Browser | undefined;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });
  return () => browser!;
}

/** A function keeping full-page screenshots in .data/artifacts/<folder>/<name>.png. */
export function screenshots(folder: string): (page: Page, name: string) => Promise<Buffer> {
  const dir = join(process.cwd(), '.data', 'artifacts', folder);
  mkdirSync(dir, { recursive: true });
  return (page, name) => page.screenshot({ path: join(dir, `${name}.png`), fullPage: true });
}
