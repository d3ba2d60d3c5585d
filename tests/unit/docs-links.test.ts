// The repository describes itself: the README and docs/ link only to files
// inside it (and to public addresses), and every such link resolves.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PAGES = ['README.md', 'packages/cli/README.md', ...readdirSync(join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' }).filter((n) => n.endsWith('.md')).map((n) => `docs/${n}`)];

test('README and docs link only inside the repository, and every link resolves', () => {
  const wrong: string[] = [];
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8');
    // Markdown links, and paths written in code spans that climb out of the page's folder.
    for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      const target = m[1].split('#')[0];
      if (!target || /^[a-z]+:/i.test(m[1])) continue;
      const at = resolve(dirname(join(ROOT, page)), target);
      if (relative(ROOT, at).startsWith('..')) wrong.push(`${page}: ${m[1]} is outside the repository`);
      else if (!existsSync(at)) wrong.push(`${page}: ${m[1]} does not exist`);
    }
    for (const m of text.matchAll(/`(\.\.\/[^`\s]+)`/g)) {
      if (relative(ROOT, resolve(dirname(join(ROOT, page)), m[1])).startsWith('..')) wrong.push(`${page}: \`${m[1]}\` is outside the repository`);
    }
  }
  expect(wrong).toEqual([]);
});
