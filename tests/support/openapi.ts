// Validates responses against an OpenAPI document: the catalog's against the Iceberg REST catalog
// document, Floe's own API's against docs/openapi.json (packages/api).
//
// `validateCatalogResponse` checks one response (status and JSON body) against the operation the
// document declares for its method and path; `catalogRequest` is a drop-in for
// `request(stack().catalog_url)` (supertest) and `validatingFetch` a `fetch` for iceberg-js, both of
// which fail the request with an Error naming the path and each violation. `floeRequest` does the
// same for the gateway with Floe's document.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import request from 'supertest';
import { parse } from 'yaml';

type Json = Record<string, any>;

// A copy of the Apache Iceberg REST catalog document lives in the repository
// (spec/), so a fresh clone validates against it with nothing beside it.
export const OPENAPI_SPEC_PATH = process.env.FLOE_OPENAPI_SPEC
  ?? fileURLToPath(new URL('../../spec/iceberg-rest-catalog-open-api.yaml', import.meta.url));

/** Floe's own API document, as `npm run docs:openapi` writes it. */
export const FLOE_OPENAPI_PATH = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

/** A document the validator knows: its id in Ajv, how to read it, and what its responses are called in messages. */
interface DocSource {
  id: string;
  read: () => Json;
  what: string;
  /** Paths the document does not describe on purpose (checked for nothing). */
  outside?: RegExp;
  /**
   * The service's answers to any path and method (Floe's: 404 `not_found` for a path it does not
   * serve, 405 `method_not_allowed` for a method a path does not take), checked as the envelope
   * with that code instead of against an operation.
   */
  anyPath?: true;
}
const CATALOG: DocSource = { id: 'iceberg-rest-catalog-openapi', read: () => parse(readFileSync(OPENAPI_SPEC_PATH, 'utf8')) as Json, what: 'catalog response' };
// The gateway also serves pages (/app, /legal), the reference itself (/docs, /v1/openapi.json), the MCP tool
// server (its own protocol) and, refused, internal paths: none of them are API operations.
const FLOE: DocSource = {
  id: 'floe-openapi', read: () => JSON.parse(readFileSync(FLOE_OPENAPI_PATH, 'utf8')) as Json, what: 'Floe API response',
  outside: /^\/(app|legal|docs|internal|mcp)(\/|$)|^\/\.well-known\/oauth-protected-resource|^\/(v1\/openapi\.json|livez)$/,
  anyPath: true,
};
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface PathTemplate {
  template: string;
  regex: RegExp;
  params: number;
  item: Json;
}

interface Loaded {
  doc: Json;
  ajv: Ajv2020;
  paths: PathTemplate[];
  validators: Map<string, ValidateFunction>;
}

const loaded = new Map<string, Loaded>();

/** Escapes one JSON-pointer segment for use in a `$ref` URI fragment. */
const pointerSegment = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'));

function lookupPointer(doc: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) throw new Error(`unsupported $ref ${ref}`);
  let node: any = doc;
  for (const raw of ref.slice(2).split('/')) {
    const seg = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = node?.[seg];
  }
  return node;
}

/**
 * Adapts the OpenAPI dialect to what Ajv accepts, without loosening anything:
 * - `discriminator.mapping` is dropped (Ajv derives the mapping from the `oneOf` branches' `const`/`enum`);
 *   a discriminator Ajv cannot use (no `oneOf`, branches without a `const`/`enum` tag) is dropped,
 *   which leaves the plain `oneOf`/`allOf` to decide — except where its `oneOf` branches overlap (the
 *   scan planning results: `submitted` is both AsyncPlanningResult and EmptyPlanningResult, as JSON
 *   Schema reads them): there the mapping selects the one schema the value must match, as OpenAPI says
 *   a discriminator does (the tag must be one of the mapping's values);
 * - a `oneOf` of bare primitive types that overlap (the Iceberg document's PrimitiveTypeValue lists
 *   int and long, float and double, and eight kinds of string, with nothing to tell them apart, so no
 *   value can match exactly one) is read as `anyOf`: the value must still be one of them;
 * - `nullable: true` without `type` becomes `anyOf: [{type: null}, <the rest>]` (Ajv requires `type` beside it).
 */
function adapt(doc: Json): Json {
  const deref = (s: any): any => (s && typeof s.$ref === 'string' && s.$ref.startsWith('#/') ? lookupPointer(doc, s.$ref) : s);

  const discriminatorUsable = (node: Json): boolean => {
    const tag = node.discriminator?.propertyName;
    if (typeof tag !== 'string' || !Array.isArray(node.oneOf)) return false;
    const topRequired = Array.isArray(node.required) && node.required.includes(tag);
    const seen = new Set<string>();
    for (const branch of node.oneOf) {
      const sch = deref(branch);
      const prop = sch?.properties?.[tag];
      if (!prop || typeof prop !== 'object') return false;
      if (!topRequired && !(Array.isArray(sch.required) && sch.required.includes(tag))) return false;
      const values = prop.const !== undefined ? [prop.const] : Array.isArray(prop.enum) ? prop.enum : undefined;
      if (!values) return false;
      for (const v of values) {
        if (typeof v !== 'string' || seen.has(v)) return false;
        seen.add(v);
      }
    }
    return true;
  };

  /** Branches of one primitive JSON type with no const or enum tag: two of one type can both match a value. */
  const barePrimitive = (branch: Json): boolean => {
    const sch = deref(branch);
    return !!sch && typeof sch.type === 'string' && ['string', 'integer', 'number', 'boolean'].includes(sch.type)
      && sch.const === undefined && sch.enum === undefined;
  };

  const walk = (node: any): any => {
    if (Array.isArray(node)) return node.map(walk);
    if (!node || typeof node !== 'object') return node;
    const out: Json = {};
    for (const [k, v] of Object.entries(node)) out[k] = k === 'example' || k === 'examples' ? v : walk(v);
    const mapping = node.discriminator?.mapping;
    if (out.discriminator && typeof out.discriminator === 'object') {
      if (discriminatorUsable(node)) out.discriminator = { propertyName: out.discriminator.propertyName };
      else delete out.discriminator;
    }
    if (Array.isArray(out.oneOf) && !out.discriminator && mapping && typeof mapping === 'object' && typeof node.discriminator.propertyName === 'string') {
      const tag = node.discriminator.propertyName as string;
      const { oneOf: _branches, ...rest } = out;
      return {
        ...rest,
        required: [...new Set([...(Array.isArray(rest.required) ? rest.required : []), tag])],
        allOf: [
          ...(Array.isArray(rest.allOf) ? rest.allOf : []),
          { properties: { [tag]: { enum: Object.keys(mapping) } } },
          ...Object.entries(mapping as Record<string, string>).map(([value, ref]) => ({ if: { properties: { [tag]: { const: value } } }, then: { $ref: ref } })),
        ],
      };
    }
    if (Array.isArray(out.oneOf) && out.oneOf.length > 1 && node.oneOf.every(barePrimitive)) {
      const types = node.oneOf.map((b: Json) => deref(b).type);
      if (new Set(types).size < types.length || (types.includes('integer') && types.includes('number'))) {
        const { oneOf, ...rest } = out;
        return { ...rest, anyOf: oneOf };
      }
    }
    if (out.nullable === true && out.type === undefined) {
      const { nullable: _n, description, ...rest } = out;
      return { ...(description !== undefined ? { description } : {}), anyOf: [{ type: 'null' }, rest] };
    }
    return out;
  };
  return walk(doc);
}

function load(source: DocSource): Loaded {
  const known = loaded.get(source.id);
  if (known) return known;
  const doc = source.read();
  const ajv = new Ajv2020({ strict: false, allErrors: true, discriminator: true, validateSchema: false, logger: false });
  addFormats(ajv);
  // The whole (adapted) document is one schema resource, so that the document's own
  // `#/components/schemas/...` references resolve and any response schema is addressable by pointer.
  const adapted = adapt(doc);
  ajv.addSchema({ ...adapted, $id: source.id }, source.id);
  const paths: PathTemplate[] = Object.entries(doc.paths ?? {}).map(([template, item]) => {
    const parts = template.split(/(\{[^}]+\})/).filter(Boolean);
    const params = parts.filter((p) => p.startsWith('{')).length;
    const source = parts.map((p) => (p.startsWith('{') ? '([^/]+)' : p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('');
    return { template, regex: new RegExp(`^${source}$`), params, item: item as Json };
  });
  // Literal segments win over parameters when two templates match.
  paths.sort((a, b) => a.params - b.params);
  const fresh = { doc, ajv, paths, validators: new Map() };
  loaded.set(source.id, fresh);
  return fresh;
}

function formatError(e: ErrorObject): string {
  const where = e.instancePath === '' ? '(root)' : e.instancePath;
  let detail = e.message ?? 'is invalid';
  if (e.keyword === 'additionalProperties') detail += ` '${(e.params as Json).additionalProperty}'`;
  else if (e.keyword === 'enum') detail += ` ${JSON.stringify((e.params as Json).allowedValues)}`;
  else if (e.keyword === 'const') detail += ` ${JSON.stringify((e.params as Json).allowedValue)}`;
  return `${where} ${detail} (schema ${e.schemaPath})`;
}

/** Finds the response object declared for `status`: exact code, then its range (`4XX`), then `default`. */
function declaredResponse(responses: Json, status: number): { key: string; response: Json } | undefined {
  for (const key of [String(status), `${String(status)[0]}XX`, `${String(status)[0]}xx`, 'default']) {
    if (responses[key] !== undefined) return { key, response: responses[key] as Json };
  }
  return undefined;
}

interface Resolved {
  /** Names method, path and status (and the operation once found), for messages. */
  where: string;
  /** Violations found before looking at the body: unknown path or operation, undeclared status. */
  violations: string[];
  /** The declared application/json body schema, when there is one (never for HEAD). */
  schema?: { pointer: string; name: string };
}

function resolve(source: DocSource, method: string, urlPath: string, status: number): Resolved {
  const { doc, paths } = load(source);
  const m = method.toLowerCase();
  const path = urlPath.split('?')[0].split('#')[0];
  const label = `${method.toUpperCase()} ${path} -> ${status}`;

  const match = paths.find((p) => p.regex.test(path));
  if (!match) return { where: label, violations: [`${label}: the path matches no path in the OpenAPI document`] };
  const op = (METHODS as readonly string[]).includes(m) ? (match.item[m] as Json | undefined) : undefined;
  if (!op) return { where: label, violations: [`${label}: the OpenAPI document declares no ${method.toUpperCase()} operation for ${match.template}`] };
  const where = `${label} (${op.operationId ?? match.template})`;
  const found = declaredResponse(op.responses ?? {}, status);
  if (!found) {
    const declared = Object.keys(op.responses ?? {}).join(', ');
    return { where, violations: [`${where}: status ${status} is not declared for this operation (declared: ${declared})`] };
  }

  let pointer = `#/paths/${pointerSegment(match.template)}/${m}/responses/${pointerSegment(found.key)}`;
  let response = found.response;
  for (let hops = 0; typeof response.$ref === 'string' && hops < 10; hops += 1) {
    pointer = response.$ref as string;
    response = lookupPointer(doc, pointer) as Json;
    if (!response) return { where, violations: [`${where}: unresolvable response $ref ${pointer}`] };
  }
  if (m === 'head') return { where, violations: [] };
  const content = response.content as Json | undefined;
  const mediaKey = content && Object.keys(content).find((k) => k.split(';')[0].trim().toLowerCase() === 'application/json');
  if (!mediaKey || !content![mediaKey].schema) return { where, violations: [] };
  const schema = content![mediaKey].schema as Json;
  const schemaPointer = `${pointer}/content/${pointerSegment(mediaKey)}/schema`;
  return { where, violations: [], schema: { pointer: schemaPointer, name: typeof schema.$ref === 'string' ? schema.$ref : schemaPointer } };
}

/**
 * One known defect of the document, handled explicitly rather than by loosening anything: a few
 * view operations declare their 404/409 body as the bare `ErrorModel`, while every other
 * operation (and the Java and Python clients) use the wrapped `IcebergErrorResponse`
 * `{error: ErrorModel}`. For exactly those responses the wrapped object is checked against
 * `ErrorModel`.
 */
const BARE_ERROR_MODEL = '#/components/schemas/ErrorModel';

function validateBody(source: DocSource, r: Resolved, body: unknown): string[] {
  if (!r.schema) return [];
  if (source === CATALOG && r.schema.name === BARE_ERROR_MODEL && body && typeof body === 'object' && 'error' in body) {
    return validateBody(source, { ...r, schema: { pointer: BARE_ERROR_MODEL, name: `${BARE_ERROR_MODEL} (as {error: ErrorModel}, the form every other operation declares)` } }, (body as { error: unknown }).error);
  }
  const { ajv, validators } = load(source);
  let validate = validators.get(r.schema.pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${source.id}${r.schema.pointer}` });
    validators.set(r.schema.pointer, validate);
  }
  if (validate(body)) return [];
  return (validate.errors ?? []).map((e) => `${r.where}: body does not match ${r.schema!.name}: ${formatError(e)}`);
}

/**
 * Validates one catalog response against the OpenAPI document. `urlPath` is the request path
 * as the catalog serves it (without scheme and host; a query string is ignored). Returns the
 * violations, each naming the method, path and status and, for the body, the JSON pointer of the
 * offending value; an empty array means the response conforms. Responses the document declares
 * without a JSON body (204, 304, HEAD) are checked only for a declared status.
 */
export function validateCatalogResponse(method: string, urlPath: string, status: number, body: unknown): string[] {
  const r = resolve(CATALOG, method, urlPath, status);
  return r.violations.length > 0 ? r.violations : validateBody(CATALOG, r, body);
}

/** The same for a response of Floe's own API (the gateway's routes) against docs/openapi.json. */
export function validateFloeResponse(method: string, urlPath: string, status: number, body: unknown): string[] {
  const r = resolve(FLOE, method, urlPath, status);
  return r.violations.length > 0 ? r.violations : validateBody(FLOE, r, body);
}

/**
 * Validates a response as seen on the wire: besides `validateCatalogResponse`, a declared JSON body
 * must be present and typed as JSON. `text` is the raw body.
 */
/** Floe's answer to a path or method it does not serve. */
function unservedAnswer(status: number, body: unknown): boolean {
  const code = (body as { error?: { code?: unknown } } | null)?.error?.code;
  return (status === 404 && code === 'not_found') || (status === 405 && code === 'method_not_allowed');
}

function validateWireResponse(source: DocSource, method: string, urlPath: string, status: number, contentType: string | null | undefined, text: string, body: unknown): string[] {
  if (source.outside?.test(urlPath.split('?')[0])) return [];
  if (source.anyPath && unservedAnswer(status, body)) return [];
  const r = resolve(source, method, urlPath, status);
  if (r.violations.length > 0) return r.violations;
  if (!r.schema) return [];
  if (text.length === 0) return [`${r.where}: the document declares an application/json body (${r.schema.name}), the response has none`];
  const typed = !!contentType && /^application\/([\w.-]+\+)?json\b/i.test(contentType.trim());
  return [
    ...(typed ? [] : [`${r.where}: the document declares an application/json body, the response's Content-Type is ${contentType ?? 'missing'}`]),
    ...validateBody(source, r, body),
  ];
}

function violationError(source: DocSource, method: string, urlPath: string, status: number, violations: string[]): Error {
  const err = new Error(`${source.what} to ${method.toUpperCase()} ${urlPath} (${status}) violates the OpenAPI document:\n  - ${violations.join('\n  - ')}`);
  err.name = 'OpenApiViolation';
  return err;
}

function relativePath(baseUrl: string, url: string): string {
  const base = new URL(baseUrl);
  const target = new URL(url, base);
  const prefix = base.pathname.replace(/\/+$/, '');
  const path = prefix && target.pathname.startsWith(prefix) ? target.pathname.slice(prefix.length) || '/' : target.pathname;
  return path;
}

type Agent = ReturnType<typeof request>;
const AGENT_METHODS = ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options'] as const;

/**
 * A drop-in for `request(baseUrl)` (supertest) that validates every response against the OpenAPI
 * document before the test sees it; a violation fails the request with an Error.
 */
export function catalogRequest(baseUrl: string): Agent {
  return validatingRequest(CATALOG, baseUrl, (err) => { throw err; });
}

/**
 * `request(stack().base_url)` whose every response is checked against Floe's own document.
 * `onViolation` decides what a violation does: throw (the test fails) or be recorded.
 */
export function floeRequest(baseUrl: string, onViolation: (err: Error) => void): Agent {
  return validatingRequest(FLOE, baseUrl, onViolation);
}

function validatingRequest(source: DocSource, baseUrl: string, onViolation: (err: Error) => void): Agent {
  const agent = request(baseUrl) as any;
  const wrapped: any = Object.create(agent);
  for (const name of AGENT_METHODS) {
    if (typeof agent[name] !== 'function') continue;
    const method = name === 'del' ? 'delete' : name;
    wrapped[name] = (url: string, ...rest: unknown[]) => {
      const test = agent[name](url, ...rest);
      const path = relativePath(baseUrl, url);
      // supertest runs assertions in the order they were added, on every `end`/`await`, so this one runs first.
      test.expect((res: request.Response) => {
        const text = typeof res.text === 'string' ? res.text : '';
        const violations = validateWireResponse(source, method, path, res.status, res.headers['content-type'], text, res.body);
        if (violations.length > 0) onViolation(violationError(source, method, path, res.status, [...new Set(violations)]));
      });
      return test;
    };
  }
  return wrapped as Agent;
}

/**
 * A `fetch` for iceberg-js that validates every catalog response against the OpenAPI document and
 * throws on a violation; otherwise it returns the untouched response.
 */
export function validatingFetch(baseUrl: string, realFetch: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input: Parameters<typeof fetch>[0], init?: Parameters<typeof fetch>[1]) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? (typeof input === 'object' && !(input instanceof URL) ? input.method : undefined) ?? 'GET').toUpperCase();
    const res = await realFetch(input, init);
    const path = relativePath(baseUrl, url);
    const text = method === 'HEAD' ? '' : await res.clone().text();
    let body: unknown;
    if (text.length > 0) {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    const violations = validateWireResponse(CATALOG, method, path, res.status, res.headers.get('content-type'), text, body);
    if (violations.length > 0) throw violationError(CATALOG, method, path, res.status, [...new Set(violations)]);
    return res;
  };
}
