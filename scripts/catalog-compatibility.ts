// `npm run docs:catalog`: writes docs/catalog-compatibility.md, one row per
// operation of the Iceberg REST catalog's OpenAPI document (the repository's
// copy, spec/iceberg-rest-catalog-open-api.yaml) with what Floe's catalog does
// for it, read from the catalog's route table (scripts/spec-coverage.ts
// mountedRoutes: served, or answering 501 from routes/unbuilt.ts), and one row
// per update action and requirement of a commit, read from the `case` labels
// of the code that applies them (packages/iceberg metadata/ and views/). It also
// writes services/catalog/src/spec-operations.ts, the document's operations as
// data, from which GET /v1/config advertises what the running app serves
// (services/catalog/src/route-table.ts). tests/unit/catalog-compatibility.test.ts
// regenerates both in memory and fails when a committed file differs.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { mountedRoutes, routeShape } from './spec-coverage';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SPEC = 'spec/iceberg-rest-catalog-open-api.yaml';
export const COMPATIBILITY_PAGE = 'docs/catalog-compatibility.md';
export const OPERATIONS_MODULE = 'services/catalog/src/spec-operations.ts';
const METHODS = ['get', 'head', 'post', 'put', 'delete'];

export interface SpecOperation { method: string; path: string; operationId: string; summary: string }
export interface OperationRow extends SpecOperation { floe: 'served' | '501' | 'missing' }
/** An update action or requirement type of a commit, and whether the code that applies commits handles it. */
export interface ChangeRow { kind: ChangeKind; name: string; applied: boolean }

interface Schema {
  properties?: Record<string, { const?: string; enum?: string[] }>;
  anyOf?: Array<{ $ref: string }>;
  oneOf?: Array<{ $ref: string }>;
  discriminator?: { mapping?: Record<string, string> };
}
interface Document {
  paths: Record<string, Record<string, { operationId?: string; summary?: string }>>;
  components: { schemas: Record<string, Schema> };
}

const document = (): Document => parse(readFileSync(join(ROOT, SPEC), 'utf8')) as Document;

/** The document's operations, in its order. */
export function specOperations(): SpecOperation[] {
  const doc = document();
  const out: SpecOperation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (op?.operationId) out.push({ method: method.toUpperCase(), path, operationId: op.operationId, summary: (op.summary ?? '').replace(/\s+/g, ' ').trim() });
    }
  }
  return out;
}

/** Each operation with what the catalog's route table does for it (a GET route answers HEAD too, as express does). */
export function compatibility(): OperationRow[] {
  const served = new Set<string>();
  const unbuilt = new Set<string>();
  for (const r of mountedRoutes().filter((m) => m.service === 'catalog')) {
    const to = r.unbuilt ? unbuilt : served;
    to.add(r.route);
    if (r.route.startsWith('GET ')) to.add(`HEAD ${r.route.slice(4)}`);
  }
  return specOperations().map((op) => {
    const key = routeShape(op.method, op.path);
    return { ...op, floe: served.has(key) ? 'served' : unbuilt.has(key) ? '501' : 'missing' };
  });
}

// The kinds of change a commit carries: the document's union schema, the field
// naming each member, and the source whose `case '…'` labels apply them.
const CHANGES = {
  'Table updates': { union: 'TableUpdate', field: 'action', source: 'packages/iceberg/src/metadata/updates.ts' },
  'Table requirements': { union: 'TableRequirement', field: 'type', source: 'packages/iceberg/src/metadata/requirements.ts' },
  'View updates': { union: 'ViewUpdate', field: 'action', source: 'packages/iceberg/src/views/updates.ts' },
  'View requirements': { union: 'ViewRequirement', field: 'type', source: 'packages/iceberg/src/views/updates.ts' },
} as const;
type ChangeKind = keyof typeof CHANGES;

/** Every update action and requirement type of the document, with whether the code applies it. */
export function changes(): ChangeRow[] {
  const schemas = document().components.schemas;
  const out: ChangeRow[] = [];
  for (const [kind, c] of Object.entries(CHANGES) as Array<[ChangeKind, (typeof CHANGES)[ChangeKind]]>) {
    // `case 'name':`, or `.type === 'name'` where one kind is taken before the switch.
    const handled = new Set([...readFileSync(join(ROOT, c.source), 'utf8').matchAll(/(?:\bcase |\.(?:type|action) === )'([a-z-]+)'/g)].map((m) => m[1]));
    const union = schemas[c.union];
    // A union lists its members (anyOf, oneOf) or only maps them by name (a discriminator).
    const members = (union.anyOf ?? union.oneOf ?? Object.values(union.discriminator?.mapping ?? {}).map(($ref) => ({ $ref })));
    for (const { $ref } of members) {
      const member = schemas[$ref.split('/').pop()!];
      const name = member?.properties?.[c.field]?.const ?? member?.properties?.[c.field]?.enum?.[0];
      if (!name) throw new Error(`${c.union}: ${$ref} names no ${c.field}`);
      out.push({ kind, name, applied: handled.has(name) });
    }
  }
  return out;
}

// What Floe does beyond the document's words, per operation; docs/catalog.md has the whole story.
const NOTES: Record<string, string> = {
  getConfig: '`?warehouse=` by id or name; `endpoints` names every operation served here, read off the running app',
  getToken: '`client_credentials` with the catalog credential (read-write or read-only); no other grant',
  listNamespaces: 'nested namespaces (`parent`), paged',
  dropNamespace: '409 `NamespaceNotEmptyException` while it holds tables, views or namespaces',
  createTable: 'staged create too; a location inside the warehouse bucket only; maintenance defaults set',
  loadTable: '`snapshots=all` or `refs`; a weak `ETag` and 304 on `If-None-Match`; vended credentials on request',
  updateTable: 'compare-and-set on the metadata pointer; every requirement and update for v1–v3',
  dropTable: '`purgeRequested` deletes the files after the answer',
  registerTable: 'the metadata file must lie in the warehouse bucket; `overwrite`',
  unregisterTable: 'files stay; the answer holds every commit made before it',
  loadCredentials: 'an STS session (900 s) narrowed to the table location, read-only for the read-only credential',
  reportMetrics: 'accepted and logged',
  commitTransaction: 'all tables or none',
  planTableScan: 'filters prune by column bounds and identity partitions; deletes attached per task; read-only credentials for the planned files; in the background above 2,000 files',
  fetchPlanningResult: 'plans held in Redis for an hour',
  cancelPlanning: 'again 204',
  fetchScanTasks: 'pages of 1,000 tasks',
  listFunctions: 'functions made with Floe\'s own PUT …/functions/{function} (the UDF metadata as the body) and removed with DELETE',
  loadFunction: 'the metadata as stored, without a metadata-location',
  signRequest: 'objects under the table location only, in its bucket, on this deployment\'s store; GET and HEAD only for the read-only credential',
};

const WORDS = { served: 'yes', '501': '501 (not built yet)', missing: 'no' } as const;

export function renderPage(rows: OperationRow[], changeRows: ChangeRow[]): string {
  const count = (f: OperationRow['floe']) => rows.filter((r) => r.floe === f).length;
  const lines = [
    '# Iceberg REST catalog: compatibility',
    '',
    '<!-- Generated by `npm run docs:catalog` (scripts/catalog-compatibility.ts) from',
    `     ${SPEC} and the catalog's route table; do not edit by hand. -->`,
    '',
    `Every operation of the Iceberg REST catalog's OpenAPI document (\`${SPEC}\`) and`,
    "whether Floe's catalog serves it. A route not built yet answers 501",
    '`NotImplementedException` after authentication and is left out of',
    "`GET /v1/config`'s `endpoints`. How the catalog behaves is in [catalog.md](catalog.md).",
    '',
    `${rows.length} operations: ${count('served')} served, ${count('501')} answering 501, ${count('missing')} not mounted.`,
    '',
    '| Operation | Route | Served | Notes |',
    '| --- | --- | --- | --- |',
    ...rows.map((r) => `| \`${r.operationId}\` | \`${r.method} ${r.path}\` | ${WORDS[r.floe]} | ${NOTES[r.operationId] ?? ''} |`),
    '',
    '## What a commit may carry',
    '',
    'Each update action and requirement of the document, and whether a commit',
    '(`updateTable`, `commitTransaction`, `replaceView`, the creates) applies it;',
    'an unknown one is refused with 400 `BadRequestException`.',
  ];
  for (const kind of Object.keys(CHANGES) as ChangeKind[]) {
    lines.push('', `### ${kind}`, '', '| Name | Applied |', '| --- | --- |');
    for (const c of changeRows.filter((r) => r.kind === kind)) lines.push(`| \`${c.name}\` | ${c.applied ? 'yes' : 'no'} |`);
  }
  lines.push('');
  return lines.join('\n');
}

export function renderOperationsModule(ops: SpecOperation[]): string {
  return [
    '// Generated by `npm run docs:catalog` (scripts/catalog-compatibility.ts) from',
    `// ${SPEC}; do not edit by hand. The Iceberg REST catalog's operations,`,
    "// from which GET /v1/config's `endpoints` is read off the running app (route-table.ts).",
    '',
    'export interface SpecOperation { method: string; path: string; operationId: string }',
    '',
    'export const SPEC_OPERATIONS: readonly SpecOperation[] = [',
    ...ops.map((o) => `  { method: '${o.method}', path: '${o.path}', operationId: '${o.operationId}' },`),
    '];',
    '',
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const rows = compatibility();
  writeFileSync(join(ROOT, COMPATIBILITY_PAGE), renderPage(rows, changes()));
  writeFileSync(join(ROOT, OPERATIONS_MODULE), renderOperationsModule(specOperations()));
  process.stdout.write(`${COMPATIBILITY_PAGE}: ${rows.length} operations, ${rows.filter((r) => r.floe === 'served').length} served\n`);
}
