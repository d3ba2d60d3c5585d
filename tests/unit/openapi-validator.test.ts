import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { catalogRequest, validateCatalogResponse, validateFloeResponse, validatingFetch } from '../support/openapi';

// The OpenAPI validator the catalog e2e tests run every response through: it must reject
// what the document forbids, and name the path, status and offending JSON pointer.

const tablePath = '/v1/wh-123/namespaces/db%1Fsales/tables/orders';

const metadata = {
  'format-version': 2,
  'table-uuid': '8f1a3c1e-5a0c-4b0e-9a43-1f3f2c6a9d10',
  location: 's3://bucket/wh/db/sales/orders',
  'last-updated-ms': 1_700_000_000_000,
  'last-column-id': 1,
  schemas: [{ type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] }],
  'current-schema-id': 0,
  'partition-specs': [{ 'spec-id': 0, fields: [] }],
  'default-spec-id': 0,
  'last-partition-id': 999,
  'sort-orders': [{ 'order-id': 0, fields: [] }],
  'default-sort-order-id': 0,
  properties: {},
};

const error = (code: number, type = 'NoSuchTableException') => ({ error: { message: 'nope', type, code } });

describe('validateCatalogResponse', () => {
  test('accepts a correct LoadTableResult and a correct error body', () => {
    expect(validateCatalogResponse('GET', tablePath, 200, { 'metadata-location': 's3://x/m.json', metadata, config: {} })).toEqual([]);
    expect(validateCatalogResponse('GET', tablePath, 404, error(404))).toEqual([]);
    expect(validateCatalogResponse('GET', `/v1/config?warehouse=x`, 200, { defaults: {}, overrides: {} })).toEqual([]);
    expect(validateCatalogResponse('POST', '/v1/oauth/tokens', 200, { access_token: 't', token_type: 'bearer', expires_in: 3600, issued_token_type: 'urn:ietf:params:oauth:token-type:access_token' })).toEqual([]);
    expect(validateCatalogResponse('POST', '/v1/oauth/tokens', 401, { error: 'invalid_client', error_description: 'x' })).toEqual([]);
  });

  test('a LoadTableResult without metadata names the path, status and the violation', () => {
    const v = validateCatalogResponse('GET', tablePath, 200, { 'metadata-location': 's3://x/m.json' });
    expect(v.length).toBeGreaterThan(0);
    expect(v.join('\n')).toContain(`GET ${tablePath} -> 200`);
    expect(v.join('\n')).toContain("must have required property 'metadata'");
  });

  test('a wrongly typed nested value names its JSON pointer', () => {
    const v = validateCatalogResponse('GET', tablePath, 200, { metadata: { ...metadata, 'format-version': 'two' } });
    expect(v.join('\n')).toContain('/metadata/format-version');
  });

  test('an error body without type is a violation', () => {
    const v = validateCatalogResponse('GET', tablePath, 404, { error: { message: 'nope', code: 404 } });
    expect(v.join('\n')).toMatch(/\/error must have required property 'type'/);
  });

  test('nullable: null is accepted where the document says nullable, a wrongly typed value is not', () => {
    expect(validateCatalogResponse('GET', '/v1/wh/namespaces', 200, { namespaces: [['a']], 'next-page-token': null })).toEqual([]);
    expect(validateCatalogResponse('GET', '/v1/wh/namespaces', 200, { namespaces: [['a']], 'next-page-token': 5 })).not.toEqual([]);
  });

  test('an undeclared status, an unknown path or method is a violation; 204 and HEAD only need a declared status', () => {
    expect(validateCatalogResponse('GET', tablePath, 418, error(418)).join('\n')).toContain('status 418 is not declared');
    expect(validateCatalogResponse('GET', '/v2/nowhere', 200, {}).join('\n')).toContain('matches no path');
    expect(validateCatalogResponse('PUT', tablePath, 200, {}).join('\n')).toContain('no PUT operation');
    expect(validateCatalogResponse('DELETE', tablePath, 204, undefined)).toEqual([]);
    expect(validateCatalogResponse('HEAD', tablePath, 204, undefined)).toEqual([]);
    expect(validateCatalogResponse('HEAD', tablePath, 404, undefined)).toEqual([]);
    expect(validateCatalogResponse('GET', tablePath, 304, undefined)).toEqual([]);
  });

  test('5XX falls back to the declared range', () => {
    expect(validateCatalogResponse('GET', tablePath, 502, error(502, 'InternalServerError'))).toEqual([]);
  });

  test('scan planning results: the discriminator selects the one schema, and a primitive value may be any of the document\'s kinds', () => {
    const plan = `${tablePath}/plan`;
    expect(validateCatalogResponse('POST', plan, 200, { status: 'submitted', 'plan-id': 'p1' })).toEqual([]);
    // submitted without a plan-id is an AsyncPlanningResult missing its id; an unknown status matches nothing.
    expect(validateCatalogResponse('POST', plan, 200, { status: 'submitted' }).join('\n')).toMatch(/plan-id/);
    expect(validateCatalogResponse('POST', plan, 200, { status: 'running', 'plan-id': 'p1' }).length).toBeGreaterThan(0);
    const dataFile = { content: 'data', 'file-path': 's3://b/t/data/a.parquet', 'file-format': 'parquet', 'spec-id': 0, partition: ['2024-10-04', 3, 'DE'], 'file-size-in-bytes': 10, 'record-count': 1 };
    const completed = { status: 'completed', 'plan-id': 'p1', 'delete-files': [], 'file-scan-tasks': [{ 'data-file': dataFile }] };
    expect(validateCatalogResponse('POST', plan, 200, completed)).toEqual([]);
    expect(validateCatalogResponse('GET', `${plan}/p1`, 200, { status: 'cancelled' })).toEqual([]);
    // A partition value that is no primitive at all is still refused.
    expect(validateCatalogResponse('POST', plan, 200, { ...completed, 'file-scan-tasks': [{ 'data-file': { ...dataFile, partition: [{ a: 1 }] } }] }).length).toBeGreaterThan(0);
  });
});

describe('validatingFetch', () => {
  const base = 'http://catalog.test';
  const fake = (status: number, body: unknown) => (async () => new Response(body === undefined ? null : JSON.stringify(body), {
    status, headers: body === undefined ? {} : { 'content-type': 'application/json' },
  })) as unknown as typeof fetch;

  test('returns the untouched response when it conforms', async () => {
    const res = await validatingFetch(base, fake(404, error(404)))(`${base}${tablePath}`, { method: 'GET' });
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(error(404));
  });

  test('throws naming the path and the violation', async () => {
    await expect(validatingFetch(base, fake(200, { config: {} }))(`${base}${tablePath}`)).rejects.toThrow(/GET \/v1\/wh-123\/namespaces\/db%1Fsales\/tables\/orders -> 200.*must have required property 'metadata'/s);
    await expect(validatingFetch(base, fake(204, undefined))(`${base}${tablePath}`, { method: 'DELETE' })).resolves.toBeInstanceOf(Response);
  });
});

describe('catalogRequest', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.setHeader('content-type', 'application/json');
      if (req.url?.startsWith('/v1/wh/namespaces/good')) res.end(JSON.stringify({ namespace: ['good'], properties: {} }));
      else { res.statusCode = 404; res.end(JSON.stringify({ error: { message: 'no', code: 404 } })); }
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  test('passes a conforming response through the supertest chain', async () => {
    const res = await catalogRequest(url).get('/v1/wh/namespaces/good').set('Authorization', 'Bearer x').query({ a: 1 }).expect(200);
    expect(res.body.namespace).toEqual(['good']);
  });

  test('fails the request on a violation, before the test\'s own expectations', async () => {
    await expect(catalogRequest(url).get('/v1/wh/namespaces/bad').expect(404)).rejects.toThrow(/GET \/v1\/wh\/namespaces\/bad -> 404.*\/error must have required property 'type'/s);
  });
});

describe('validateFloeResponse (Floe\'s own document, docs/openapi.json)', () => {
  const key = { key_id: 'key_1', label: 'laptop', status: 'active', created_at: '2026-11-27T20:00:00.000Z', last_used_at: null, revoked_at: null };
  test('accepts an answer as the document gives it, and a refusal with a code the route answers', () => {
    expect(validateFloeResponse('GET', '/v1/api-keys', 200, { principal_id: 'p_1', keys: [key], count: 1 })).toEqual([]);
    expect(validateFloeResponse('DELETE', '/v1/api-keys/key_1', 404, { error: { code: 'api_key_not_found', message: 'no', request_id: 'req_1' } })).toEqual([]);
  });
  test('names a field the document does not have, a wrong type, an undeclared code and an undeclared status', () => {
    expect(validateFloeResponse('GET', '/v1/api-keys', 200, { principal_id: 'p_1', keys: [{ ...key, secret: 'x' }], count: 1 }).join('\n'))
      .toMatch(/GET \/v1\/api-keys -> 200 \(listApiKeys\).*\/keys\/0 must NOT have additional properties 'secret'/);
    expect(validateFloeResponse('GET', '/v1/api-keys', 200, { principal_id: 'p_1', keys: [], count: '0' }).join('\n')).toMatch(/\/count must be integer/);
    expect(validateFloeResponse('DELETE', '/v1/api-keys/key_1', 404, { error: { code: 'sink_not_found', message: 'no', request_id: 'r' } }).join('\n')).toMatch(/\/error\/code must be equal to constant "api_key_not_found"/);
    expect(validateFloeResponse('GET', '/v1/api-keys', 418, {}).join('\n')).toMatch(/status 418 is not declared/);
    expect(validateFloeResponse('GET', '/v1/no-such-route', 200, {}).join('\n')).toMatch(/matches no path/);
  });
});
