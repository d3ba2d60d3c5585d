// docs/catalog-compatibility.md and services/catalog/src/spec-operations.ts
// against a fresh reading of the Iceberg REST document and the catalog's route
// table (scripts/catalog-compatibility.ts). GET /v1/config's `endpoints` are
// tested in services/catalog/src/route-table.test.ts and catalog-namespaces.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  COMPATIBILITY_PAGE, OPERATIONS_MODULE, compatibility, renderOperationsModule, renderPage, specOperations,
} from '../../scripts/catalog-compatibility';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const rows = compatibility();

test.each([
  [COMPATIBILITY_PAGE, () => renderPage(rows)],
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
  expect(row('planTableScan')).toMatchObject({ floe: '501' });
});
