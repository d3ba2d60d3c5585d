import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { FLOE_ERROR_CODES, SPEC_ERROR_CODES } from './error-codes';

// The registry against the spec's error index ("| code | HTTP | routes |" in
// service-interface.md), both ways. The repository keeps a copy of the spec
// (spec/), as it does the Iceberg OpenAPI document, so a fresh clone checks
// against it; where the workspace's own spec sits beside, the copy must match.

const copy = fileURLToPath(new URL('../../../spec/service-interface.md', import.meta.url));
const workspace = fileURLToPath(new URL('../../../../shared/spec/service-interface.md', import.meta.url));

function errorIndex(text: string): Map<string, number[]> {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| code | HTTP | routes |'));
  expect(start).toBeGreaterThan(0);
  const index = new Map<string, number[]>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [codes, statuses, routes] = line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
    const numbers = statuses.split(',').map((s) => Number(s.trim())).filter(Number.isInteger);
    // A row may name sibling codes in its routes column: "password set (also password_too_long, …)".
    const also = /\(also ([a-z_, ]+)\)/.exec(routes ?? '')?.[1] ?? '';
    for (const code of [...codes.split(','), ...(also ? also.split(',') : [])]) {
      const name = code.trim().replace(/`/g, '');
      index.set(name, [...new Set([...(index.get(name) ?? []), ...numbers])].sort((a, b) => a - b));
    }
  }
  return index;
}

test('every code of the spec\'s error index is in the registry with its statuses, and nothing else is listed as the spec\'s', () => {
  const index = errorIndex(readFileSync(copy, 'utf8'));
  expect(index.size).toBeGreaterThan(150);
  const registry = new Map(Object.entries(SPEC_ERROR_CODES).map(([code, statuses]) => [code, [...statuses]]));
  expect(registry).toEqual(index);
});

test('Floe\'s own codes are not in the spec\'s index (else they belong in its part of the registry)', () => {
  const index = errorIndex(readFileSync(copy, 'utf8'));
  expect(Object.keys(FLOE_ERROR_CODES).filter((code) => index.has(code))).toEqual([]);
});

// Skipped (and shown as skipped) in a clone with no workspace beside it, as in CI.
(existsSync(workspace) ? test : test.skip)('the repository\'s copy of the spec is the workspace\'s, when that sits beside the checkout', () => {
  expect(readFileSync(copy, 'utf8')).toBe(readFileSync(workspace, 'utf8'));
});
