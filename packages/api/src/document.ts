import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { errorResponses } from './errors';
import type { Operation, ResponseSpec } from './operation';
import { RESOURCES } from './resources';
import { SECURITY_SCHEMES, securityOf } from './security';

// Floe's API as one OpenAPI 3.1 document, built from the operations each
// resource file declares (resources/). `npm run docs:openapi` writes it to
// docs/openapi.json, the gateway serves it at /v1/openapi.json, and a test
// fails when the committed file differs from what this builds.

export const API_TITLE = 'Floe API';
/** The document's own version: the date of the last change of shape, not a release. */
export const API_VERSION = '2026-11-27';

function response(r: ResponseSpec): ZodOpenApiResponseObject {
  const out: ZodOpenApiResponseObject = { description: r.description };
  if (r.schema) out.content = { [r.contentType ?? 'application/json']: { schema: r.schema } };
  else if (r.contentType) out.content = { [r.contentType]: {} };
  if (r.headers) out.headers = r.headers;
  return out;
}

function operationObject(op: Operation, tag: string): ZodOpenApiOperationObject {
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, r] of Object.entries(op.responses)) responses[status] = response(r);
  for (const [status, r] of Object.entries(errorResponses(op))) responses[status] ??= response(r);
  return {
    operationId: op.id,
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    tags: [tag],
    security: securityOf(op.auth),
    ...(op.params || op.query ? { requestParams: { ...(op.params ? { path: op.params } : {}), ...(op.query ? { query: op.query } : {}) } } : {}),
    ...(op.body ? { requestBody: { required: !op.bodyOptional, content: { [op.bodyType ?? 'application/json']: { schema: op.body } } } } : {}),
    responses: responses as ZodOpenApiResponsesObject,
    'x-floe-service': op.service,
    ...(op.unbuilt ? { 'x-floe-status': 'unbuilt' } : {}),
  } as ZodOpenApiOperationObject;
}

/** Every operation of every resource, in file order. */
export const allOperations = (): Operation[] => RESOURCES.flatMap((r) => r.operations);

export function apiDocument() {
  const paths: ZodOpenApiPathsObject = {};
  const seen = new Set<string>();
  for (const { tag, operations } of RESOURCES) {
    for (const op of operations) {
      const key = `${op.method.toUpperCase()} ${op.path}`;
      if (seen.has(key)) throw new Error(`the document describes ${key} twice`);
      seen.add(key);
      paths[op.path] = { ...paths[op.path], [op.method]: operationObject(op, tag) };
    }
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description: 'The control plane, identity and ingest routes of Floe, a hosted Apache Iceberg catalog. '
        + 'The Iceberg REST catalog itself follows the Apache Iceberg REST catalog document at `{catalog_url}`. '
        + 'Every refusal is the envelope `{error: {code, message, request_id, …}}`; the OAuth endpoints answer in the flat form.',
    },
    servers: [{ url: '/', description: 'The deployment\'s base URL ({base_url})' }],
    tags: RESOURCES.map((r) => ({ name: r.tag, description: r.description })),
    paths,
    components: { securitySchemes: SECURITY_SCHEMES },
  });
}
