// Each model has one writing module (DESIGN: Data): the table "Who writes
// what" in docs/architecture.md names it, and this holds the code to the
// table. A write is a Prisma client call that changes rows —
// `.<model>.create|createMany|update|updateMany|upsert|delete|deleteMany(` —
// or a raw `INSERT INTO`, `UPDATE` or `DELETE FROM` of the model's table, in
// a package's or a service's source (tests aside). Audit events and
// idempotency keys are written by everyone (the table says "any"); a model may
// list named exceptions in its third column, and then exactly those.
// The layering it keeps beside: no store module imports an access rule or a
// domain function, no route file a store, no `new Worker(` outside the job
// runner, no catalog request outside the catalog client.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const read = (...p: string[]) => readFileSync(join(ROOT, ...p), 'utf8');

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(ROOT, dir))) {
    if (name === 'node_modules' || name === 'generated') continue;
    const path = join(dir, name);
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...sources(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

const CODE = ['packages', 'services'].flatMap((top) => readdirSync(join(ROOT, top)).map((unit) => `${top}/${unit}`))
  .filter((unit) => statSync(join(ROOT, unit)).isDirectory())
  .flatMap((unit) => sources(join(unit, 'src')))
  .map((file) => ({ file, unit: file.split('/').slice(0, 2).join('/'), text: read(file) }));

const SCHEMA = read('packages/db/prisma/schema.prisma');
/** The schema's models as the Prisma client names them (`OAuthGrant` → `oAuthGrant`). */
const MODELS = [...SCHEMA.matchAll(/^model (\w+) \{/gm)].map((m) => m[1][0].toLowerCase() + m[1].slice(1));
/** Each model's table (`@@map`). */
const TABLES = new Map([...SCHEMA.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map((m) => [/@@map\("(\w+)"\)/.exec(m[2])![1], m[1][0].toLowerCase() + m[1].slice(1)]));

interface Row { owner: string; also: string[] }

/** The table under "## Who writes what": | model | owner | also written by |. */
function ownershipTable(): Map<string, Row> {
  const doc = read('docs/architecture.md');
  const section = doc.slice(doc.indexOf('## Who writes what'));
  const rows = new Map<string, Row>();
  for (const line of section.split('\n').slice(1)) {
    if (line.startsWith('## ')) break;
    const cells = line.split('|').map((c) => c.trim()).filter((_, i, all) => i > 0 && i < all.length - 1);
    if (cells.length < 2 || !cells[0].startsWith('`') || cells[0] === '`model`') continue;
    const units = (cell: string) => [...cell.matchAll(/`((?:packages|services)\/[\w-]+)`/g)].map((m) => m[1]);
    for (const model of [...cells[0].matchAll(/`(\w+)`/g)].map((m) => m[1])) {
      rows.set(model, { owner: cells[1] === 'any' ? 'any' : units(cells[1])[0], also: units(cells[2] ?? '') });
    }
  }
  return rows;
}

const WRITE = /\.(\w+)\.(create|createMany|createManyAndReturn|update|updateMany|updateManyAndReturn|upsert|delete|deleteMany)\(/g;
const RAW_WRITE = /\b(?:INSERT INTO|UPDATE|DELETE FROM)\s+(\w+)/g;

function writers(): Map<string, Set<string>> {
  const byModel = new Map<string, Set<string>>();
  const add = (model: string | undefined, unit: string) => {
    if (model && MODELS.includes(model)) byModel.set(model, (byModel.get(model) ?? new Set()).add(unit));
  };
  for (const f of CODE) {
    for (const m of f.text.matchAll(WRITE)) add(m[1], f.unit);
    for (const m of f.text.matchAll(RAW_WRITE)) add(TABLES.get(m[1]), f.unit);
  }
  return byModel;
}

test('the ownership table names every model of the schema, once, with an owner that exists', () => {
  const table = ownershipTable();
  expect([...table.keys()].sort()).toEqual([...MODELS].sort());
  const units = new Set(CODE.map((f) => f.unit));
  for (const [model, row] of table) {
    if (row.owner !== 'any') expect([model, units.has(row.owner)]).toEqual([model, true]);
  }
});

test('every model is written from its owner only (and the exceptions the table names)', () => {
  const table = ownershipTable();
  const found = writers();
  const wrong: string[] = [];
  for (const [model, units] of found) {
    const row = table.get(model)!;
    if (row.owner === 'any') continue;
    for (const unit of units) if (unit !== row.owner && !row.also.includes(unit)) wrong.push(`${model} written by ${unit} (owner: ${row.owner})`);
    for (const unit of row.also) if (!units.has(unit)) wrong.push(`${model}: the exception for ${unit} names nothing it writes; drop it`);
  }
  expect(wrong).toEqual([]);
});

test('stores import no access rule or domain function, routes import no store', () => {
  const wrong: string[] = [];
  for (const f of CODE) {
    const imports = [...f.text.matchAll(/from '(\.[^']*)'/g)].map((m) => m[1]);
    if (/\/store\//.test(f.file)) for (const i of imports) if (/(^|\/)(access|domain)\//.test(i)) wrong.push(`${f.file} imports ${i}`);
    if (/\/routes\//.test(f.file)) for (const i of imports) if (/(^|\/)store\//.test(i)) wrong.push(`${f.file} imports ${i}`);
  }
  expect(wrong).toEqual([]);
});

test('BullMQ workers only in the job runner, catalog requests only in the catalog client', () => {
  const workers = CODE.filter((f) => /new Worker\(/.test(f.text) && !/from 'node:worker_threads'/.test(f.text)).map((f) => relative(ROOT, join(ROOT, f.file)));
  expect(workers).toEqual(['packages/queues/src/runner.ts']);
  const requests = CODE.filter((f) => /\bcatalog\.request\(/.test(f.text)).map((f) => f.file);
  expect(requests).toEqual([]);
});
