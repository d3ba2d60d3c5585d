import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Validator } from '@seriousme/openapi-schema-validator';
import { allOperations, apiDocument } from '@floe/api';
import { CLI_TYPES_FILE, OPENAPI_FILE, cliTypesText, openApiText } from '../../scripts/openapi';
import { mountedRoutes, routeShape } from '../../scripts/spec-coverage';
import { isInternalPath, upstreamFor, type Upstream } from '../../services/gateway/src/route-table';

// Floe's OpenAPI document (packages/api): valid OpenAPI 3.1, the committed
// docs/openapi.json exactly what packages/api builds, and every public route
// the deployables mount described, nothing else.

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The services the document describes, as the gateway's route table names them (the catalog and the MCP tool server have documents of their own). */
const UPSTREAM: Record<string, Upstream> = { identity: 'identity', 'control-plane': 'control-plane', 'ingest-gateway': 'ingest' };

/** Whether the public gateway sends this mounted route to its service: internal routes and each service's own /healthz are not. */
function isPublic(service: string, route: string): boolean {
  const [method, shape] = route.split(' ');
  const path = shape.replace(/:/g, 'x');
  // The device route: the gateway passes /d/{token} to the ingest host (or redirects there).
  if (service === 'ingest-gateway' && /^\/d\/x$/.test(path)) return true;
  return UPSTREAM[service] !== undefined && !isInternalPath(path) && upstreamFor(path, method) === UPSTREAM[service];
}

test('the document is valid OpenAPI 3.1', async () => {
  const validator = new Validator();
  const result = await validator.validate(apiDocument() as never);
  expect(result.errors ?? []).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
});

test(`${OPENAPI_FILE} is what packages/api builds (run \`npm run docs:openapi\` after changing packages/api)`, () => {
  expect(readFileSync(join(ROOT, OPENAPI_FILE), 'utf8')).toBe(openApiText());
});

test(`${CLI_TYPES_FILE}, the CLI's types of the document, is current (run \`npm run docs:openapi\`)`, async () => {
  expect(readFileSync(join(ROOT, CLI_TYPES_FILE), 'utf8')).toBe(await cliTypesText());
});

test('every public route the deployables mount is in the document, and the document holds nothing else', () => {
  const mounted = mountedRoutes().filter((r) => isPublic(r.service, r.route));
  const documented = allOperations().map((op) => ({ route: routeShape(op.method, op.path), service: op.service, unbuilt: op.unbuilt === true }));
  const key = (r: { route: string; service: string; unbuilt: boolean }) => `${r.route} (${r.service}${r.unbuilt ? ', unbuilt' : ''})`;
  const missing = mounted.map(key).filter((k) => !documented.some((d) => key(d) === k));
  const extra = documented.map(key).filter((k) => !mounted.some((m) => key(m) === k));
  expect({ missing, extra }).toEqual({ missing: [], extra: [] });
});

test('operation ids are unique and every refusal names the codes it may carry', () => {
  const ids = allOperations().map((op) => op.id);
  expect(ids.length).toBe(new Set(ids).size);
  // The committed text, read back as plain JSON.
  const doc: { paths: Record<string, Record<string, { responses: Record<string, { description: string }> }>> } = JSON.parse(openApiText());
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(item)) {
      for (const [status, r] of Object.entries(op.responses)) {
        if (Number(status) >= 400) expect([method, path, status, r.description]).toEqual([method, path, status, expect.stringMatching(/: `[a-z_]+`/)]);
      }
    }
  }
});
