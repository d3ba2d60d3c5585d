// `npm run docs:coverage`: writes docs/coverage.md, which routes and error
// codes of the spec (the repository's copy, spec/service-interface.md, which
// a clone made alone in CI has too) the deployables mount and the tests
// exercise. Everything is read statically: the apps are not imported (they
// need a database) and no test is run, so the page says where a test names a
// route or asserts a code, not that the test passes. tests/unit/spec-coverage.test.ts
// regenerates the page in memory and fails when the file differs.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const COVERAGE_PAGE = 'docs/coverage.md';
const SPEC = 'spec/service-interface.md';
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

export interface SpecRoute { method: string; path: string; status: string }
export interface RouteRow extends SpecRoute { app: 'served' | '501' | 'missing'; testedIn: string | null }
export interface CodeRow { code: string; status: string; served: boolean; testedIn: string | null }
export interface Coverage { routes: RouteRow[]; codes: CodeRow[]; unnamed: string }

// ---- files ----

// Files under `dir` (relative to the root; `services/*/src` takes every service) whose path passes `keep`, sorted.
function files(dir: string, keep: (path: string) => boolean): string[] {
  const [top, star, ...rest] = dir.split('/');
  const roots = star === '*'
    ? readdirSync(join(ROOT, top), { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => [top, d.name, ...rest].join('/'))
    : [dir];
  const out: string[] = [];
  const walk = (at: string): void => {
    if (!existsSync(join(ROOT, at))) return;
    for (const e of readdirSync(join(ROOT, at), { withFileTypes: true })) {
      const path = `${at}/${e.name}`;
      if (e.isDirectory() && e.name !== 'node_modules') walk(path);
      else if (e.isFile() && keep(path)) out.push(path);
    }
  };
  roots.forEach(walk);
  return out.sort();
}
const read = (path: string): string => readFileSync(join(ROOT, path), 'utf8');
const isTest = (p: string): boolean => p.endsWith('.test.ts');

// ---- a small TypeScript scanner: enough to find where a literal, comment or bracket group ends ----

/** Index just past the string or template literal that opens at i. */
function pastLiteral(src: string, i: number): number {
  const q = src[i];
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === '\\') j++;
    else if (src[j] === q) return j + 1;
    else if (q === '`' && src[j] === '$' && src[j + 1] === '{') j = pastGroup(src, j + 1) - 1;
  }
  return src.length;
}

/** Index past a literal, comment or bracket group starting at i; i itself when none starts there. */
function skip(src: string, i: number): number {
  const c = src[i];
  if (c === "'" || c === '"' || c === '`') return pastLiteral(src, i);
  if (c === '/' && src[i + 1] === '/') { const nl = src.indexOf('\n', i); return nl < 0 ? src.length : nl; }
  if (c === '/' && src[i + 1] === '*') { const end = src.indexOf('*/', i + 2); return end < 0 ? src.length : end + 2; }
  if (c === '(' || c === '[' || c === '{') return pastGroup(src, i);
  return i;
}

/** Index just past the bracket group that opens at i. */
function pastGroup(src: string, i: number): number {
  for (let j = i + 1; j < src.length; j++) {
    if (src[j] === ')' || src[j] === ']' || src[j] === '}') return j + 1;
    const next = skip(src, j);
    if (next > j) j = next - 1;
  }
  return src.length;
}

/** The HTTP-method keys of the object literal that opens at i: `{ get: …, post: [...] }`. */
function methodKeys(src: string, i: number): string[] {
  const end = pastGroup(src, i) - 1;
  const keys: string[] = [];
  for (let j = i + 1; j < end; j++) {
    const next = skip(src, j);
    if (next > j) { j = next - 1; continue; }
    const m = /^(get|post|put|patch|delete)\s*[:,}(]/.exec(src.slice(j, j + 12));
    if (m && /[\s{,]/.test(src[j - 1])) keys.push(m[1].toUpperCase());
  }
  return keys;
}

// ---- the spec ----

/** `/v1/x/{id}` and `/v1/x/:id` alike: every parameter is `:`. */
const shape = (path: string): string => path.replace(/\{[^}]+\}|:[A-Za-z_]\w*/g, ':').replace(/(.)\/$/, '$1');

/** Lines of one `## ` section of the spec. */
function section(spec: string, title: string): string[] {
  const lines = spec.split('\n');
  const start = lines.findIndex((l) => l === `## ${title}`);
  const end = lines.findIndex((l, n) => n > start && l.startsWith('## '));
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

const ROUTE_IN_TEXT = /`(GET|POST|PUT|PATCH|DELETE) (\/[^`\s?]*)[^`]*`(\s*→\s*(\d{3}))?/g;

/**
 * Every route of the Endpoints part: "`METHOD /path` → status", the routes
 * named in passing (internal routes, "`A` and `B` → 200", the sink's test
 * and device-token routes) and those the error index sentence names. A route
 * given no status there is "—".
 */
export function specRoutes(spec: string): SpecRoute[] {
  const found = new Map<string, SpecRoute>();
  for (const line of section(spec, 'Endpoints')) {
    const matches = [...line.matchAll(ROUTE_IN_TEXT)];
    matches.forEach((m, n) => {
      let status = m[4];
      // "`GET /jwks.json` and `GET /.well-known/jwks.json` → 200": the pair shares the status.
      const after = line.slice(m.index + m[0].length, matches[n + 1]?.index);
      if (!status && /^\s*and\s*$/.test(after)) status = matches[n + 1][4];
      const key = `${m[1]} ${shape(m[2])}`;
      const known = found.get(key);
      if (!known || (known.status === '—' && status)) found.set(key, { method: m[1], path: m[2], status: status ?? '—' });
    });
  }
  return sortRoutes([...found.values()]);
}

/** What the error index sentence names without a path ("org policy, invitations list, …"). */
export function unnamedRoutes(spec: string): string {
  const sentence = section(spec, 'Endpoints').find((l) => l.startsWith('Routes that appear only in the error index')) ?? '';
  return sentence.slice(sentence.indexOf(':') + 1).replace(/`[^`]*`,?\s*/g, '').replace(/\.$/, '').trim();
}

/** The error index table (`| code | HTTP | routes |`): code → statuses. A row may name several codes, or more in "(also a, b)". */
export function specCodes(spec: string): Map<string, string> {
  const lines = spec.split('\n');
  const start = lines.findIndex((l) => l.startsWith('| code | HTTP | routes |'));
  const codes = new Map<string, Set<string>>();
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [names, statuses, routes] = line.replace(/^\||\|$/g, '').split('|').map((c) => c.trim());
    const also = /\(also ([a-z_, ]+)\)/.exec(routes ?? '')?.[1] ?? '';
    for (const name of [...names.split(','), ...(also ? also.split(',') : [])]) {
      const code = name.trim().replace(/`/g, '');
      const set = codes.get(code) ?? new Set<string>();
      for (const s of statuses.split(',')) set.add(s.trim());
      codes.set(code, set);
    }
  }
  return new Map([...codes].map(([code, set]) => [code, [...set].sort().join(', ')]));
}

// ---- the route table ----

/**
 * What the deployables mount, by "METHOD shape": `route(app, '/path', {get: …})`
 * of @floe/http, express's `app.get('/path', …)`, and the 501 lists of
 * routes/unbuilt.ts (`['/path', ['post'], …]`).
 */
export function appRoutes(): { served: Set<string>; unbuilt: Set<string> } {
  const served = new Set<string>();
  const unbuilt = new Set<string>();
  for (const r of mountedRoutes()) (r.unbuilt ? unbuilt : served).add(r.route);
  return { served, unbuilt };
}

/** One mounted route: "METHOD shape" (parameters as `:`), the service (its folder under services/) and whether it answers 501. */
export interface MountedRoute { route: string; service: string; unbuilt: boolean }

/** Every route the deployables mount, each with its service. */
export function mountedRoutes(): MountedRoute[] {
  const out: MountedRoute[] = [];
  const sources = files('services/*/src', (p) => !isTest(p) && (/\/src\/routes\/[^/]+\.ts$/.test(p) || p.endsWith('/src/app.ts')));
  for (const path of sources) {
    const src = read(path);
    const service = path.split('/')[1];
    const add = (method: string, address: string, unbuilt = false) => out.push({ route: `${method.toUpperCase()} ${shape(address)}`, service, unbuilt });
    for (const m of src.matchAll(/\broute\(\s*\w+\s*,\s*'(\/[^']*)'\s*,\s*/g)) {
      const at = m.index + m[0].length;
      if (src[at] === '{') for (const method of methodKeys(src, at)) add(method, m[1]);
    }
    for (const m of src.matchAll(/\b(?:app|router)\.(get|post|put|patch|delete)\(\s*'(\/[^']*)'/g)) add(m[1], m[2]);
    if (path.endsWith('/unbuilt.ts')) {
      for (const m of src.matchAll(/\[\s*'(\/[^']*)'\s*,\s*\[([^\]]*)\]/g)) {
        for (const method of m[2].matchAll(/'(\w+)'/g)) add(method[1], m[1], true);
      }
    }
  }
  return out;
}

/** "METHOD shape" of an OpenAPI or express path, parameters as `:`. */
export const routeShape = (method: string, path: string): string => `${method.toUpperCase()} ${shape(path)}`;

// ---- the tests ----

/** The suite, in this order: end-to-end (with its helpers), fault, then the services' and packages' own tests. */
const TEST_FILES = (): string[] => [
  ...files('tests/e2e', (p) => p.endsWith('.ts')),
  ...files('tests/fault', (p) => p.endsWith('.ts')),
  ...files('services/*/src', isTest),
  ...files('packages/*/src', isTest),
];

const WILD = '\u0000';
const IDENT_CALL = /^\s*([A-Za-z_$][\w$]*)\s*(\([^]*\))?\s*$/;

/** `const base = (…) => \`/v1/…\``, `const path = '/v1/…'`, `function p(…) { return \`…\` }`: name → literals. */
function aliases(src: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const defs = /\b(?:const|let)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:(?:async\s*)?\([^)]*\)\s*=>\s*)?(?=['"`])|\bfunction\s+([A-Za-z_$][\w$]*)\s*\([^)]*\)[^{]*\{\s*return\s+(?=['"`])/g;
  for (const m of src.matchAll(defs)) {
    const at = m.index + m[0].length;
    const name = m[1] ?? m[2];
    found.set(name, [...(found.get(name) ?? []), src.slice(at, pastLiteral(src, at))]);
  }
  return found;
}

/** The strings an argument expression can be: a literal, a template (unknown parts WILD), or a local alias of one. */
function expand(expr: string, names: Map<string, string[]>, depth = 0): string[] {
  const e = expr.trim();
  const call = IDENT_CALL.exec(e);
  if (call) return depth < 3 ? (names.get(call[1]) ?? []).flatMap((lit) => expand(lit, names, depth + 1)) : [];
  if (e[0] === "'" || e[0] === '"') return [e.slice(1, -1)];
  if (e[0] !== '`') return [];
  let outs = [''];
  for (let j = 1; j < e.length - 1; j++) {
    if (e[j] === '$' && e[j + 1] === '{') {
      const end = pastGroup(e, j + 1);
      const inner = e.slice(j + 2, end - 1);
      const known = IDENT_CALL.test(inner) && depth < 3 ? expand(inner, names, depth + 1) : [];
      const parts = known.length ? known : [WILD];
      outs = outs.flatMap((o) => parts.map((p) => o + p)).slice(0, 16);
      j = end - 1;
    } else {
      if (e[j] === '\\') j++;
      outs = outs.map((o) => o + e[j]);
    }
  }
  return outs;
}

/** A called address as path segments: origin, a leading base-URL part, the query and a trailing slash dropped. */
function segments(address: string): string[] | null {
  let p = address.replace(/^https?:\/\/[^/]+/, '').replace(new RegExp(`^${WILD}+(?=/)`), '');
  p = p.split(/[?#]/)[0].replace(/(.)\/$/, '$1');
  return p.startsWith('/') ? p.split('/').slice(1) : null;
}

/** Where the argument expression starting at i ends: a literal, or a name with its call's parentheses. */
function argumentEnd(src: string, i: number): number {
  if (/['"`]/.test(src[i])) return pastLiteral(src, i);
  const name = /^[A-Za-z_$][\w$.]*\s*/.exec(src.slice(i, i + 200))?.[0] ?? '';
  return src[i + name.length] === '(' ? pastGroup(src, i + name.length) : i + name.length;
}

/** Where each top-level argument of the call whose parenthesis opens at i starts. */
function callArguments(src: string, i: number): number[] {
  const end = pastGroup(src, i) - 1;
  const starts: number[] = [];
  let start = i + 1;
  for (let j = i + 1; j <= end; j++) {
    const next = skip(src, j);
    if (next > j) { j = next - 1; continue; }
    if (src[j] === ',' || j === end) { starts.push(start + (/^\s*/.exec(src.slice(start, j))?.[0].length ?? 0)); start = j + 1; }
  }
  return starts;
}

interface Call { method: string; segments: string[]; file: string }

/**
 * Requests the suite makes: supertest's `.get('/v1/…')`, a method name
 * before a path (`api('GET', '/v1/…')`, `[identity, 'post', '/internal/…']`),
 * and `fetch(url, {method})`; each path a literal, a template, or a local
 * alias of one.
 */
function testCalls(): Call[] {
  const calls: Call[] = [];
  for (const file of TEST_FILES()) {
    const src = read(file);
    const names = aliases(src);
    const add = (method: string, at: number): void => {
      for (const address of expand(src.slice(at, argumentEnd(src, at)), names)) {
        const segs = segments(address);
        if (segs) calls.push({ method, segments: segs, file });
      }
    };
    for (const m of src.matchAll(/\.(get|post|put|patch|delete)\(\s*/g)) add(m[1].toUpperCase(), m.index + m[0].length);
    for (const m of src.matchAll(/['"](get|post|put|patch|delete)['"]\s*,\s*/gi)) add(m[1].toUpperCase(), m.index + m[0].length);
    // A local wrapper named after its method: `const post = (path, …) => …; post('/d/…')`.
    for (const m of src.matchAll(/(?<![\w$.])(get|post|put|patch|del)\(\s*(?=['"`])/g)) add(m[1] === 'del' ? 'DELETE' : m[1].toUpperCase(), m.index + m[0].length);
    // fetch(url, {method}), requestFrom(address, url, {method}), rawRequest(base, {method, path}).
    for (const m of src.matchAll(/\b(?:fetch|requestFrom|rawRequest)\(/g)) {
      const open = m.index + m[0].length - 1;
      const call = src.slice(open, pastGroup(src, open));
      const method = (/\bmethod\s*:\s*['"](\w+)['"]/.exec(call)?.[1] ?? 'GET').toUpperCase();
      for (const start of callArguments(src, open)) add(method, start);
      for (const p of call.matchAll(/\bpath\s*:\s*(?=['"`])/g)) add(method, open + p.index + p[0].length);
    }
  }
  return calls;
}

/** Whether a call reaches a route: same method, same number of segments, a parameter taking any one. */
function reaches(call: Call, route: SpecRoute): boolean {
  const want = route.path.replace(/(.)\/$/, '$1').split('/').slice(1);
  return call.method === route.method && call.segments.length === want.length
    && want.every((w, n) => (w.startsWith('{') ? call.segments[n] !== '' : call.segments[n] === w));
}

/**
 * Codes the suite asserts, each with a file per assertion: `expectError(res, 404, 'x')`
 * (and any helper given a status then a code, such as `icebergError`),
 * `code: 'x'` / `error: 'x'` (the OAuth flat form) in an expected object,
 * `.code).toBe('x')`, `toHaveProperty('error.code', 'x')`.
 */
function testedCodes(): Map<string, string[]> {
  const patterns = [
    /\b\d{3}\s*,\s*['"]([a-z][a-z0-9_]*)['"]/g,
    /\b(?:code|error)\s*:\s*['"]([a-z][a-z0-9_]*)['"]/g,
    /\.(?:code|error)\)\s*\.(?:toBe|toEqual)\(\s*['"]([a-z][a-z0-9_]*)['"]/g,
    /toHaveProperty\(\s*['"](?:error\.)?code['"]\s*,\s*['"]([a-z][a-z0-9_]*)['"]/g,
  ];
  const hits = new Map<string, string[]>();
  for (const file of TEST_FILES()) {
    const src = read(file);
    for (const re of patterns) for (const m of src.matchAll(re)) hits.set(m[1], [...(hits.get(m[1]) ?? []), file]);
  }
  return hits;
}

/** The file that does something most often (a test file before a helper beside it); a tie goes to the first in suite order. */
function mostOften(hits: string[]): string | null {
  const pool = hits.some(isTest) ? hits.filter(isTest) : hits;
  const counts = new Map<string, number>();
  for (const f of pool) counts.set(f, (counts.get(f) ?? 0) + 1);
  let best: string | null = null;
  for (const [f, n] of counts) if (best === null || n > counts.get(best)!) best = f;
  return best;
}

/** Every quoted word in the non-test sources, outside the registry (which lists every spec code by construction). */
function sourceWords(): Set<string> {
  const words = new Set<string>();
  const sources = [...files('services/*/src', (p) => p.endsWith('.ts') && !isTest(p)), ...files('packages/*/src', (p) => p.endsWith('.ts') && !isTest(p))]
    .filter((p) => p !== 'packages/http/src/error-codes.ts');
  for (const path of sources) for (const m of read(path).matchAll(/['"`]([a-z][a-z0-9_]*)['"`]/g)) words.add(m[1]);
  return words;
}

// ---- the page ----

const methodRank = (m: string): number => METHODS.indexOf(m);
function sortRoutes<T extends SpecRoute>(routes: T[]): T[] {
  return routes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : methodRank(a.method) - methodRank(b.method)));
}

export function coverage(): Coverage {
  const spec = read(SPEC);
  const { served, unbuilt } = appRoutes();
  const calls = testCalls();
  const routes = specRoutes(spec).map((r): RouteRow => {
    const key = `${r.method} ${shape(r.path)}`;
    const app = served.has(key) ? 'served' : unbuilt.has(key) ? '501' : 'missing';
    return { ...r, app, testedIn: mostOften(calls.filter((c) => reaches(c, r)).map((c) => c.file)) };
  });
  const tested = testedCodes();
  const words = sourceWords();
  const codes = [...specCodes(spec)].sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([code, status]): CodeRow => ({ code, status, served: words.has(code), testedIn: mostOften(tested.get(code) ?? []) }));
  return { routes, codes, unnamed: unnamedRoutes(spec) };
}

export function renderCoverage(c: Coverage = coverage()): string {
  const count = <T>(xs: T[], f: (x: T) => boolean): number => xs.filter(f).length;
  const r = c.routes;
  const lines = [
    '# Spec coverage',
    '',
    `Generated by \`scripts/spec-coverage.ts\` from [the service interface](../${SPEC}), the deployables' route table and the test suite: do not edit by hand. Regenerate with \`npm run docs:coverage\`; \`tests/unit/spec-coverage.test.ts\` fails while this page is stale, when a spec route is neither served nor listed as 501, and when no test calls one (beyond a short known list).`,
    '',
    `- Routes: ${r.length} in the spec; ${count(r, (x) => x.app === 'served')} served, ${count(r, (x) => x.app === '501')} answer 501, ${count(r, (x) => x.app === 'missing')} missing; ${count(r, (x) => !!x.testedIn)} called by a test, ${count(r, (x) => !x.testedIn)} not.`,
    `- Error codes: ${c.codes.length} in the error index; ${count(c.codes, (x) => x.served)} answered by the source, ${count(c.codes, (x) => !!x.testedIn)} asserted by a test, ${count(c.codes, (x) => !x.testedIn)} not.`,
    '',
    'How it is read (statically; nothing is imported or run):',
    '',
    '- Spec routes: every `` `METHOD /path` `` of the Endpoints part (status from the `→` after it; `—` for routes named in passing: internal routes, and the ones the error index sentence lists). Named there without a path, so not counted: ' + `${c.unnamed}.`,
    '- Served: `route(app, \'/path\', {get: …})` and `app.get(\'/path\', …)` in `services/*/src/routes/*.ts` and `services/*/src/app.ts`; 501: the lists of `routes/unbuilt.ts`.',
    '- Tested: a request in `tests/e2e`, `tests/fault` or a `*.test.ts` under `services/*/src` or `packages/*/src` (supertest `.get(…)`, `fetch(…)`, a method name before a path) whose path, a literal, template or local alias of one, matches the route with any segment for a parameter. The file shown is the test file that calls it most often (a helper beside the tests when no test file calls it). CLI commands are not counted.',
    '- Codes: the spec\'s error index table. Served: the code is quoted somewhere in `services/*/src` or `packages/*/src` outside the registry `packages/http/src/error-codes.ts` (which lists every spec code) and the tests. Tested: a test asserts it, and the file shown is the one that does so most often (`expectError(res, 404, \'code\')` or any helper given a status then a code, `code: \'…\'` or the OAuth flat form\'s `error: \'…\'` in an expected object, `.code).toBe(\'…\')`).',
    '',
    '## Routes',
    '',
    '| method | path | spec status | app | tested |',
    '|---|---|---|---|---|',
    ...r.map((x) => `| ${x.method} | \`${x.path}\` | ${x.status} | ${x.app} | ${x.testedIn ? `yes: \`${x.testedIn}\`` : 'no'} |`),
    '',
    '## Error codes',
    '',
    '| code | status | served | tested |',
    '|---|---|---|---|',
    ...c.codes.map((x) => `| \`${x.code}\` | ${x.status} | ${x.served ? 'yes' : 'no'} | ${x.testedIn ? `yes: \`${x.testedIn}\`` : 'no'} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(join(ROOT, COVERAGE_PAGE), renderCoverage());
  process.stdout.write(`wrote ${relative(process.cwd(), join(ROOT, COVERAGE_PAGE))}\n`);
}
