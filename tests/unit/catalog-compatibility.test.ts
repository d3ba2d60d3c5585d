// docs/catalog-compatibility.md and services/catalog/src/spec-operations.ts
// against a fresh reading of the Iceberg REST document and the catalog's route
// table (scripts/catalog-compatibility.ts). GET /v1/config's `endpoints` are
// tested in services/catalog/src/route-table.test.ts and catalog-namespaces.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  COMPATIBILITY_PAGE, OPERATIONS_MODULE, changes, compatibility, renderOperationsModule, renderPage, specOperations,
} from '../../scripts/catalog-compatibility';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rows = compatibility();

test.each([
  [COMPATIBILITY_PAGE, () => renderPage(rows, changes())],
  [OPERATIONS_MODULE, () => renderOperationsModule(specOperations())],
])('%s is up to date (else run npm run docs:catalog)', (file, render) => {
  if (readFileSync(join(ROOT, file), 'utf8') !== render()) throw new Error(`${file} differs from what the document and the route table give now: run npm run docs:catalog`);
});

test('every operation of the document is mounted: served, or answering 501 until built', () => {
  expect(rows.filter((r) => r.floe === 'missing')).toEqual([]);
  const row = (id: string) => rows.find((r) => r.operationId === id);
  // A scanner that silently found nothing fails here.
  expect(rows.length).toBeGreaterThanOrEqual(35);
  expect(row('loadTable')).toMatchObject({ method: 'GET', path: '/v1/{prefix}/namespaces/{namespace}/tables/{table}', floe: 'served' });
  expect(row('tableExists')).toMatchObject({ method: 'HEAD', floe: 'served' });
  expect(row('unregisterTable')).toMatchObject({ floe: 'served' });
  expect(row('loadFunction')).toMatchObject({ floe: 'served' });
});

test('every update action and requirement of the document is applied by a commit', () => {
  const found = changes();
  expect(found.filter((c) => !c.applied)).toEqual([]);
  // A reading that silently found nothing fails here.
  expect(found.filter((c) => c.kind === 'Table updates').map((c) => c.name)).toEqual(expect.arrayContaining(['add-snapshot', 'remove-encryption-key']));
  expect(found.filter((c) => c.kind === 'Table requirements').map((c) => c.name)).toEqual(expect.arrayContaining(['assert-create', 'assert-ref-snapshot-id']));
  expect(found.filter((c) => c.kind === 'View requirements').map((c) => c.name)).toEqual(['assert-view-uuid']);
});
