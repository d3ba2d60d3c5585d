import { readFileSync } from 'node:fs';
import { rawExchange, rawRequest, type RawResponse } from '../support/raw-http';
import { token } from './catalog-helpers';
import { bearer, gateway, newMember, newOrg, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { db, newPrincipal, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 14 §4: malformed input is a 4xx in the surface's error model, never a
// 5xx. Every request here is written byte for byte (tests/support/raw-http),
// because the clients the other tests use repair or refuse exactly the input
// under test: broken percent-escapes, NUL bytes, repeated query parameters,
// header blocks past Node's limit.

interface Tenant {
  key: string;
  orgId: string;
  warehouseId: string;
  warehouseName: string;
  catalogToken: string;
  credential: { client_id: string; client_secret: string };
}

let t: Tenant;

beforeAll(async () => {
  const { org, admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id, `lake_${uniq()}`);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: sinkTestSchema }).expect(201);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key)).expect(200)).body.catalog_credential;
  t = { key: admin.api_key, orgId: org.org_id, warehouseId: w.warehouse_id, warehouseName: w.name, credential, catalogToken: await token(credential.client_id, credential.client_secret) };
}, 60_000);

const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: typeof value === 'string' ? value : JSON.stringify(value) });

/** Through the public gateway with the tenant's API key (from `localAddress` when given: the limits per caller address). */
const api = (method: string, path: string, extra: { headers?: Record<string, string>; body?: string; localAddress?: string } = {}) =>
  rawRequest(stack().base_url, { method, path, ...extra, headers: { Authorization: `Bearer ${t.key}`, ...extra.headers } });

/** Straight to the catalog with the tenant's catalog token; `{wh}` in the path is the warehouse id. */
const cat = (method: string, path: string, extra: { headers?: Record<string, string>; body?: string } = {}) =>
  rawRequest(stack().catalog_url, { method, path: path.replace('{wh}', t.warehouseId), ...extra, headers: { Authorization: `Bearer ${t.catalogToken}`, ...extra.headers } });

/** The spec's envelope: exact status and code, a message, the request id of the answer; returns the error object. */
function envelope(res: RawResponse, status: number, code: string): Record<string, unknown> {
  if (res.status !== status || res.body?.error?.code !== code) throw new Error(`expected ${status} ${code}, got ${res.status} ${res.text.slice(0, 300)}`);
  expect(typeof res.body.error.message).toBe('string');
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  return res.body.error;
}

/** The Iceberg error model: {error: {message, type, code (the status), request_id}}. */
function iceberg(res: RawResponse, status: number, type: string): Record<string, unknown> {
  if (res.status !== status || res.body?.error?.type !== type) throw new Error(`expected ${status} ${type}, got ${res.status} ${res.text.slice(0, 300)}`);
  expect(res.body.error).toEqual({ message: expect.any(String), type, code: status, request_id: res.headers['x-request-id'] });
  return res.body.error;
}

const wrong: unknown[] = ['x', 5, -1.5, true, null, [], ['x'], {}, { a: 1 }, [[[]]]];

/** Every top-level field of `base` replaced by each wrong value in turn, and the whole body replaced too. */
function variants(base: Record<string, unknown>): unknown[] {
  const out: unknown[] = [...wrong];
  for (const key of Object.keys(base)) for (const v of wrong) out.push({ ...base, [key]: v });
  return out;
}

/** The log lines of one deployable that carry a request id. */
function logLines(service: string, requestId: string): Array<Record<string, any>> {
  return readFileSync(stack().services[service].log, 'utf8').split('\n').filter((l) => l.includes(requestId)).map((l) => JSON.parse(l));
}

describe('NUL in a path segment, a query value, a JSON string or key: 400, never a database error', () => {
  test('control-plane, identity and ingest routes answer 400 invalid_value in the envelope', async () => {
    const w = t.warehouseId;
    const cases: Array<[string, () => Promise<RawResponse>, string]> = [
      ['GET /v1/warehouses/{id}', () => api('GET', '/v1/warehouses/a%00b'), 'path'],
      ['GET /v1/warehouses?project', () => api('GET', '/v1/warehouses?project=a%00b'), 'project'],
      ['GET /v1/table', () => api('GET', `/v1/table?warehouse=${w}&namespace=ev%00&name=t`), 'namespace'],
      ['GET /v1/connection', () => api('GET', '/v1/connection?warehouse=a%00'), 'warehouse'],
      ['GET /v1/audit', () => api('GET', '/v1/audit?action=x%00'), 'action'],
      ['GET /v1/sinks/{id}', () => api('GET', '/v1/sinks/s%00'), 'path'],
      ['PUT /v1/warehouses/{id}/grants/{p}', () => api('PUT', `/v1/warehouses/${w}/grants/p%00`, json({ level: 'read' })), 'path'],
      ['POST /v1/projects', () => api('POST', '/v1/projects', json('{"name":"p\\u0000x"}')), 'name'],
      ['POST /v1/projects, NUL in a key', () => api('POST', '/v1/projects', json('{"name":"p","x\\u0000":1}')), 'x\u0000'],
      ['POST /v1/warehouses', () => api('POST', '/v1/warehouses', json(`{"project_id":"p\\u0000","name":"w_${uniq()}"}`)), 'project_id'],
      ['POST /v1/tables', () => api('POST', '/v1/tables', json({ warehouse_id: w, namespace: 'ev\u0000', name: 'n', schema: sinkTestSchema })), 'namespace'],
      ['POST /v1/sinks', () => api('POST', '/v1/sinks', json({ name: `s_${uniq()}`, table: 'ev.t\u0000', warehouse: w })), 'table'],
      ['PATCH /v1/table', () => api('PATCH', '/v1/table', json({ warehouse_id: w, namespace: 'ev', name: 't', properties: { owner: 'a\u0000' } })), 'properties.owner'],
      ['DELETE /v1/api-keys/{id}', () => api('DELETE', '/v1/api-keys/k%00'), 'path'],
      ['POST /v1/api-keys', () => api('POST', '/v1/api-keys', json({ label: 'a\u0000' })), 'label'],
      ['POST /v1/tokens', () => api('POST', '/v1/tokens', json({ api_key: 'al_live_a\u0000_b' })), 'api_key'],
      ['POST /v1/sinks/{id} (the send route)', () => api('POST', '/v1/sinks/s%00', json([{ a: 1 }])), 'path'],
    ];
    for (const [name, send, field] of cases) {
      const res = await send();
      const err = envelope(res, 400, 'invalid_value');
      expect([name, err.field]).toEqual([name, field]);
      expect(err.message).toMatch(/NUL/);
    }
  });

  test('catalog routes answer 400 BadRequestException', async () => {
    const cases: Array<[string, () => Promise<RawResponse>]> = [
      ['GET namespace', () => cat('GET', '/v1/{wh}/namespaces/ev%00')],
      ['GET namespaces?parent', () => cat('GET', '/v1/{wh}/namespaces?parent=ev%00')],
      ['GET table', () => cat('GET', '/v1/{wh}/namespaces/ev/tables/t%00')],
      ['GET config?warehouse', () => cat('GET', '/v1/config?warehouse=a%00')],
      ['POST namespaces', () => cat('POST', '/v1/{wh}/namespaces', json({ namespace: ['a\u0000'] }))],
      ['POST namespace properties', () => cat('POST', '/v1/{wh}/namespaces/ev/properties', json({ updates: { k: 'v\u0000' } }))],
      ['POST create table', () => cat('POST', '/v1/{wh}/namespaces/ev/tables', json({ name: 'x\u0000', schema: sinkTestSchema }))],
      ['POST rename', () => cat('POST', '/v1/{wh}/tables/rename', json({ source: { namespace: ['ev'], name: 't' }, destination: { namespace: ['ev'], name: 'u\u0000' } }))],
    ];
    for (const [name, send] of cases) {
      const res = await send();
      expect([name, res.status]).toEqual([name, 400]);
      expect(iceberg(res, 400, 'BadRequestException').message).toMatch(/NUL/);
    }
  });

  test('a NUL that only appears after decoding (a page token) is caught where Postgres refuses it: 400, logged at warn', async () => {
    // A well-formed page token whose name is one NUL byte: no NUL in the request, one in the query the catalog runs.
    const token = Buffer.from('after:\u0000').toString('base64url');
    const res = await cat('GET', `/v1/{wh}/namespaces?pageToken=${token}`);
    const err = iceberg(res, 400, 'BadRequestException');
    expect(err.message).toMatch(/cannot be used/);
    const lines = logLines('catalog', res.headers['x-request-id']);
    expect(lines.find((l) => l.message === 'refused a value the database cannot take')).toMatchObject({ level: 'warn', err: { code: '22021' } });
    expect(lines.some((l) => l.level === 'error')).toBe(false);
  });
});

describe('a broken percent-escape in the path: 400 on every service, never 500', () => {
  const broken = ['%E0%A4%A', '%ff', '%zz', 'a%'];
  test('through the gateway to identity, control plane and ingest: 400 invalid_value', async () => {
    for (const b of broken) {
      for (const path of [`/v1/api-keys/${b}`, `/v1/warehouses/${b}`, `/v1/sinks/${b}/test`, `/v1/warehouses/${b}/grants`]) {
        const err = envelope(await api('GET', path), 400, 'invalid_value');
        expect([path, err.field]).toEqual([path, 'path']);
      }
      envelope(await api('POST', `/v1/sinks/${b}`, json([{ a: 1 }])), 400, 'invalid_value');
    }
  });

  test('straight to each service, whose own edge refuses it too', async () => {
    const s = stack().services;
    for (const [service, path] of [['identity', '/v1/api-keys/%ff'], ['control-plane', '/v1/warehouses/%zz'], ['ingest-gateway', '/v1/sinks/%E0%A4%A']] as const) {
      const res = await rawRequest(s[service].url, { path, headers: { Authorization: `Bearer ${t.key}` } });
      expect([service, envelope(res, 400, 'invalid_value').field]).toEqual([service, 'path']);
    }
  });

  test('the catalog answers 400 BadRequestException', async () => {
    for (const b of broken) {
      iceberg(await cat('GET', `/v1/{wh}/namespaces/${b}`), 400, 'BadRequestException');
      iceberg(await cat('GET', `/v1/{wh}/namespaces/ev/tables/${b}`), 400, 'BadRequestException');
      iceberg(await cat('GET', `/v1/${b}/namespaces`), 400, 'BadRequestException');
    }
  });
});

describe('JSON nested past 256 levels: 400, where it used to run the parsers out of stack', () => {
  const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
  /** A struct schema with `levels` structs nested in one another: three JSON levels each. */
  const nestedSchema = (levels: number) => {
    let type: unknown = 'string';
    for (let i = levels; i >= 1; i--) type = { type: 'struct', fields: [{ id: i + 1, name: `f${i}`, required: false, type }] };
    return { type: 'struct', fields: [{ id: 1, name: 'root', required: false, type }] };
  };

  test('the catalog answers 400 BadRequestException naming the bound, at 257 levels and at 5,000 and 200,000', async () => {
    for (const n of [200_000, 5_000, 257]) {
      const body = `{"namespace":["deep"],"properties":{"k":${arrays(n - 2)}}}`;
      const err = iceberg(await cat('POST', '/v1/{wh}/namespaces', { headers: { 'Content-Type': 'application/json' }, body }), 400, 'BadRequestException');
      expect(err.message).toMatch(/deeper than 256 levels/);
    }
    const commit = `{"identifier":{"namespace":["ev"],"name":"t"},"requirements":[],"updates":${arrays(5_000)}}`;
    expect(iceberg(await cat('POST', '/v1/{wh}/namespaces/ev/tables/t', { headers: { 'Content-Type': 'application/json' }, body: commit }), 400, 'BadRequestException').message).toMatch(/deeper than 256 levels/);
    // 256 levels are read; what they hold is then judged as usual (here: a property value must be a string).
    const at256 = `{"namespace":["deep"],"properties":{"k":${arrays(254)}}}`;
    const res = await cat('POST', '/v1/{wh}/namespaces', { headers: { 'Content-Type': 'application/json' }, body: at256 });
    expect(iceberg(res, 400, 'BadRequestException').message).not.toMatch(/deeper/);
  });

  test('a real deeply nested schema fits: 80 structs in one another create, load and list', async () => {
    const name = `deep_${uniq()}`;
    const created = await cat('POST', '/v1/{wh}/namespaces/ev/tables', json({ name, schema: nestedSchema(80) }));
    expect(created.status).toBe(200);
    expect((await cat('GET', `/v1/{wh}/namespaces/ev/tables/${name}`)).status).toBe(200);
    const view = await api('GET', `/v1/table?warehouse=${t.warehouseId}&namespace=ev&name=${name}`);
    expect(view.status).toBe(200);
    expect(view.body.schema[0].name).toBe('root');
  });

  test('control plane and identity answer 400 invalid_value naming the body', async () => {
    for (const n of [5_000, 150_000, 257]) {
      const tables = await api('POST', '/v1/tables', json(`{"warehouse_id":"${t.warehouseId}","namespace":"ev","name":"n${n}","schema":{"type":"struct","fields":${arrays(n - 2)}}}`));
      expect(envelope(tables, 400, 'invalid_value')).toMatchObject({ field: 'body', message: 'the JSON body nests deeper than 256 levels' });
      const keys = await api('POST', '/v1/api-keys', json(`{"label":"x","pad":${arrays(n - 1)}}`));
      expect(envelope(keys, 400, 'invalid_value').field).toBe('body');
      const projects = await api('POST', '/v1/projects', json(`{"name":"p${n}","pad":${'{"a":'.repeat(n - 1)}1${'}'.repeat(n - 1)}}`));
      expect(envelope(projects, 400, 'invalid_value').field).toBe('body');
    }
  });
});

describe('wrong types in a body: 400 naming the field, never 500', () => {
  test('POST /v1/tables: each wrong type is 400 invalid_value with its field', async () => {
    const base = { warehouse_id: t.warehouseId, namespace: 'ev', name: `wt_${uniq()}`, schema: sinkTestSchema };
    const field0 = sinkTestSchema.fields[0];
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...base, schema: { type: 'struct', fields: 'x' } }, 'schema.fields'],
      [{ ...base, schema: 'x' }, 'schema'],
      [{ ...base, schema: [] }, 'schema'],
      [{ ...base, schema: { type: 'list', fields: [] } }, 'schema.type'],
      [{ ...base, schema: { type: 'struct', fields: ['x'] } }, 'schema.fields.0'],
      [{ ...base, schema: { type: 'struct', fields: [null] } }, 'schema.fields.0'],
      [{ ...base, schema: { type: 'struct', fields: [{ ...field0, type: 5 }] } }, 'schema.fields.0.type'],
      [{ ...base, schema: { type: 'struct', fields: [{ ...field0, name: ['id'] }] } }, 'schema.fields.0.name'],
      [{ ...base, schema: { type: 'struct', fields: [{ ...field0, id: 'one' }] } }, 'schema.fields.0.id'],
      [{ ...base, schema: { type: 'struct', fields: [{ ...field0, required: 'yes' }] } }, 'schema.fields.0.required'],
      [{ ...base, namespace: 5 }, 'namespace'],
      [{ ...base, name: ['t'] }, 'name'],
      [{ ...base, warehouse_id: { id: t.warehouseId } }, 'warehouse_id'],
      [{ ...base, format_version: 'x' }, 'format_version'],
    ];
    for (const [body, field] of cases) {
      const err = envelope(await api('POST', '/v1/tables', json(body)), 400, 'invalid_value');
      expect([JSON.stringify(body), err.field]).toEqual([JSON.stringify(body), field]);
    }
    expect(envelope(await api('POST', '/v1/tables', json({ ...base, schema: { fields: [] } })), 400, 'missing_field').field).toBe('schema.type');
  });

  test('every control-plane and identity write route answers a 4xx to wrong types', async () => {
    const w = t.warehouseId;
    const routes: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/v1/projects', { name: `p-${uniq()}`, provider: 'ceph', region: 'local', org_id: 'org_x' }],
      ['POST', '/v1/warehouses', { project_id: 'no-such-project', name: 'w', default_format_version: 2 }],
      ['PATCH', `/v1/warehouses/${w}`, { default_format_version: 2 }],
      ['POST', `/v1/warehouses/${w}/public`, { confirm: 'not-the-name' }],
      ['PUT', `/v1/warehouses/${w}/grants/no-such-principal`, { level: 'read' }],
      ['POST', '/v1/tables', { warehouse_id: w, namespace: 'fz', name: 'fz', schema: sinkTestSchema, format_version: 2 }],
      ['PATCH', '/v1/table', { warehouse_id: w, namespace: 'ev', name: 't', properties: { a: 'b' }, remove: ['c'] }],
      ['POST', '/v1/credentials', { warehouse_id: w, namespace: 'ev', name: 'no-such-table' }],
      ['POST', '/v1/sinks', { name: `s_${uniq()}`, table: 'ev.no_such_table', warehouse: w, roll_seconds: 300, roll_bytes: 67108864, inactivity_seconds: 60 }],
      ['POST', '/v1/api-keys', { label: 'fuzz' }],
      ['POST', '/v1/tokens', { api_key: 'al_live_x_y' }],
    ];
    const failures: string[] = [];
    for (const [method, path, base] of routes) {
      for (const body of variants(base)) {
        const res = await api(method, path, json(body));
        if (res.status >= 500 || res.status < 400 && res.status !== 200 && res.status !== 201 || !res.body?.error && res.status >= 400) {
          failures.push(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);

  test('every catalog write route answers a 4xx in the Iceberg model to wrong types', async () => {
    // (a variant that happens to be valid may also succeed: 2xx is fine, 5xx never)
    const ident = { namespace: ['ev'], name: 't' };
    const routes: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/v1/{wh}/namespaces', { namespace: ['fz'], properties: { a: 'b' } }],
      ['POST', '/v1/{wh}/namespaces/ev/properties', { removals: ['x'], updates: { a: 'b' } }],
      // stage-create: a variant that happens to be valid writes nothing.
      ['POST', '/v1/{wh}/namespaces/ev/tables', { name: 'fz', schema: sinkTestSchema, 'partition-spec': { 'spec-id': 0, fields: [] }, 'write-order': { 'order-id': 0, fields: [] }, 'stage-create': true, properties: {} }],
      ['POST', '/v1/{wh}/namespaces/ev/tables/t', { identifier: ident, requirements: [], updates: [] }],
      ['POST', '/v1/{wh}/transactions/commit', { 'table-changes': [{ identifier: ident, requirements: [], updates: [] }] }],
      ['POST', '/v1/{wh}/tables/rename', { source: ident, destination: { namespace: ['ev'], name: 'no' } }],
      ['POST', '/v1/{wh}/namespaces/ev/register', { name: 'fz', 'metadata-location': 's3://nowhere/x.metadata.json', overwrite: false }],
      ['POST', '/v1/{wh}/namespaces/ev/tables/t/plan', {
        'snapshot-id': 1, select: ['id'], filter: { type: 'in', child: { type: 'reference', name: 'id' }, values: [1, 2] }, 'case-sensitive': true,
        'use-snapshot-schema': false, 'stats-fields': ['id'], 'min-rows-requested': 10,
      }],
      ['POST', '/v1/{wh}/namespaces/ev/tables/t/tasks', { 'plan-task': 'x' }],
      ['PUT', '/v1/{wh}/namespaces/ev/functions/fz', {
        'function-uuid': '8f1a3c1e-5a0c-4b0e-9a43-1f3f2c6a9d10', 'format-version': 1, 'definition-log': [],
        definitions: [{ 'definition-id': 'int', parameters: [{ name: 'x', type: 'int' }], 'return-type': 'int', 'current-version-id': 1, 'function-type': 'udf',
          versions: [{ 'version-id': 1, representations: [{ type: 'sql', dialect: 'spark', sql: 'x' }], 'timestamp-ms': 1 }] }],
      }],
      ['POST', '/v1/{wh}/namespaces/ev/tables/t/sign', { region: 'us-east-1', uri: 'http://127.0.0.1:1/b/k', method: 'GET', headers: { 'x-amz-content-sha256': ['UNSIGNED-PAYLOAD'] }, provider: 's3' }],
      ['POST', '/v1/{wh}/namespaces/ev/tables/t/metrics', { 'report-type': 'scan-report', 'table-name': 'ev.t', 'snapshot-id': 1, filter: true, 'schema-id': 0, 'projected-field-ids': [], 'projected-field-names': [], metrics: {} }],
      ['POST', '/v1/{wh}/namespaces/ev/views', { name: 'fz', schema: sinkTestSchema, 'view-version': { 'version-id': 1, 'timestamp-ms': 1, 'schema-id': 0, summary: {}, representations: [], 'default-namespace': ['ev'] }, properties: {} }],
      ['POST', '/v1/{wh}/views/rename', { source: ident, destination: { namespace: ['ev'], name: 'no' } }],
    ];
    const failures: string[] = [];
    for (const [method, path, base] of routes) {
      for (const body of variants(base)) {
        const res = await cat(method, path, json(body));
        if (res.status >= 500 || (res.status >= 400 && res.body?.error?.code !== res.status)) failures.push(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 120_000);
});

describe('the catalog token route: malformed credentials are 4xx in the OAuth flat form, never 5xx', () => {
  const form = (body: string, headers: Record<string, string> = {}) =>
    rawRequest(stack().catalog_url, { method: 'POST', path: '/v1/oauth/tokens', headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers }, body });
  const basic = (userPass: string) => ({ Authorization: `Basic ${Buffer.from(userPass, 'utf8').toString('base64')}` });

  /** {error, error_description} and nothing else: what OAuth clients (and Iceberg's) parse. */
  function oauth(res: RawResponse, status: number, error: string): string {
    if (res.status !== status || res.body?.error !== error) throw new Error(`expected ${status} ${error}, got ${res.status} ${res.text.slice(0, 300)}`);
    expect(res.body).toEqual({ error, error_description: expect.any(String) });
    return res.body.error_description;
  }

  test('an over-long or unprintable client id or secret is 401 invalid_client, as an unknown client (it used to be 503, which engines retry)', async () => {
    const { client_id: id, client_secret: secret } = t.credential;
    for (const [cid, cs] of [['t'.repeat(101), secret], ['t'.repeat(10_000), secret], [id, 's'.repeat(201)], [id, 's'.repeat(15_000)], ['a%00b', secret], [id, 'x%01y']]) {
      oauth(await form(`grant_type=client_credentials&client_id=${cid}&client_secret=${cs}`), 401, 'invalid_client');
    }
    oauth(await form('grant_type=client_credentials', basic(`${'t'.repeat(500)}:${secret}`)), 401, 'invalid_client');
    oauth(await cat('POST', '/v1/oauth/tokens', json({ grant_type: 'client_credentials', client_id: 'x'.repeat(5000), client_secret: secret })), 401, 'invalid_client');
  });

  test('a Basic header with a broken percent-escape or no colon is 400 invalid_request (it used to be 500)', async () => {
    for (const userPass of ['a%zz:b', 'a:b%E0%A4%A', 'a%:b', 'no-colon']) {
      oauth(await form('grant_type=client_credentials', basic(userPass)), 400, 'invalid_request');
    }
  });

  test('a body over 16 KiB, bad JSON, an unsupported charset or a repeated parameter: flat form too', async () => {
    const big = `grant_type=client_credentials&client_id=a&client_secret=${'s'.repeat(20_000)}`;
    expect(oauth(await form(big), 413, 'invalid_request')).toMatch(/16384 bytes/);
    oauth(await cat('POST', '/v1/oauth/tokens', json('{"grant_type":')), 400, 'invalid_request');
    oauth(await cat('POST', '/v1/oauth/tokens', json('"x"')), 400, 'invalid_request');
    oauth(await form('grant_type=client_credentials&client_id=a&client_secret=b', { 'Content-Type': 'application/x-www-form-urlencoded; charset=latin2' }), 415, 'invalid_request');
    oauth(await form(Array.from({ length: 1200 }, (_, i) => `p${i}=1`).join('&')), 413, 'invalid_request');
    oauth(await form(`grant_type=client_credentials&client_id=${t.credential.client_id}&client_id=b&client_secret=${t.credential.client_secret}`), 400, 'invalid_request');
    oauth(await rawRequest(stack().catalog_url, { method: 'POST', path: '/v1/oauth/tokens?x=%00' }), 400, 'invalid_request');
    oauth(await rawRequest(stack().catalog_url, { method: 'GET', path: '/v1/oauth/tokens' }), 405, 'invalid_request');
  });

  test('the well-formed exchanges still work: form, JSON and Basic (form-encoded inside, RFC 6749 2.3.1)', async () => {
    const { client_id: id, client_secret: secret } = t.credential;
    expect((await form(`grant_type=client_credentials&client_id=${id}&client_secret=${secret}`)).status).toBe(200);
    expect((await cat('POST', '/v1/oauth/tokens', json({ grant_type: 'client_credentials', client_id: id, client_secret: secret }))).status).toBe(200);
    const viaBasic = await form('grant_type=client_credentials', basic(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`));
    expect(viaBasic.status).toBe(200);
    expect(viaBasic.body.token_type).toBe('bearer');
    oauth(await form(`grant_type=client_credentials&client_id=${id}&client_secret=wrong`), 401, 'invalid_client');
  });

  test('every body of wrong types is a 4xx in the flat form', async () => {
    const base = { grant_type: 'client_credentials', client_id: 'x', client_secret: 'y' };
    const failures: string[] = [];
    for (const body of [...['x', 5, true, null, [], {}], ...Object.keys(base).flatMap((k) => ['x'.repeat(300), 5, null, [], { a: 1 }].map((v) => ({ ...base, [k]: v })))]) {
      const res = await cat('POST', '/v1/oauth/tokens', json(body));
      if (res.status >= 500 || typeof res.body?.error !== 'string') failures.push(`${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  });
});

describe('namespace levels the control plane cannot round-trip are refused at creation', () => {
  test('createNamespace refuses empty, ".", "..", a "." or "/" inside, control characters: 400 naming the rule', async () => {
    const cases: Array<[string, RegExp]> = [
      ['', /may not be empty/], ['.', /contains "\."/], ['..', /contains "\."/], ['v1.2', /contains "\."/], ['a/b', /contains "\/"/],
      ['a\u0001b', /control character/], ['a\u001fb', /control character/], ['a\u007fb', /control character/], ['tab\there', /control character/],
      ['x'.repeat(256), /at most 255/],
    ];
    for (const [level, rule] of cases) {
      for (const namespace of [[level], ['ev', level]]) {
        const err = iceberg(await cat('POST', '/v1/{wh}/namespaces', json({ namespace })), 400, 'BadRequestException');
        expect([JSON.stringify(namespace), err.message]).toEqual([JSON.stringify(namespace), expect.stringMatching(rule)]);
      }
    }
  });

  test('other printable characters stay allowed ("*", spaces, accents, "$"), and GET /v1/tables lists them', async () => {
    const levels = [`odd*${uniq()}`, `with space ${uniq()}`, `café${uniq()}`, `$${uniq()}`];
    for (const level of levels) expect((await cat('POST', '/v1/{wh}/namespaces', json({ namespace: [level] }))).status).toBe(200);
    const nested = [levels[0], 'inner'];
    expect((await cat('POST', '/v1/{wh}/namespaces', json({ namespace: nested }))).status).toBe(200);
    expect((await cat('POST', `/v1/{wh}/namespaces/${encodeURIComponent(nested.join('\u001f'))}/tables`, json({ name: 't', schema: sinkTestSchema }))).status).toBe(200);
    const listed = await api('GET', `/v1/tables?warehouse=${t.warehouseId}`);
    expect(listed.status).toBe(200);
    expect(listed.body.namespaces_searched).toEqual(expect.arrayContaining([...levels, `${levels[0]}.inner`]));
    expect(listed.body.tables).toContainEqual({ namespace: `${levels[0]}.inner`, name: 't', table: `${levels[0]}.inner.t` });
  });

  test('the control plane\'s table create refuses such a namespace with the catalog\'s reason (a 4xx)', async () => {
    for (const [namespace, rule] of [['a..b', /empty/], ['.a', /empty/], ['a/b', /contains "\/"/], ['a\u0002', /control character/]] as const) {
      const err = envelope(await api('POST', '/v1/tables', json({ warehouse_id: t.warehouseId, namespace, name: 't', schema: sinkTestSchema })), 400, 'catalog_error');
      expect([namespace, err.catalog_message]).toEqual([namespace, expect.stringMatching(rule)]);
    }
  });

  test('namespaces made before the rule (".", "..", "v1.2", "a/b") no longer break GET /v1/tables for the whole warehouse', async () => {
    const project = (await api('GET', '/v1/projects')).body.projects[0];
    const w = await newWarehouse(t.key, project.project_id, `legacy_${uniq()}`);
    await gateway().post('/v1/tables').set(bearer(t.key)).send({ warehouse_id: w.warehouse_id, namespace: 'ok', name: 't', schema: sinkTestSchema }).expect(201);
    const pool = db();
    try {
      for (const name of ['..', 'v1.2', 'a/b', '.']) await pool.query(`INSERT INTO catalog_namespaces (warehouse_id, name) VALUES ($1, $2)`, [w.warehouse_id, name]);
    } finally {
      await pool.end();
    }
    const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(t.key)).expect(200)).body.catalog_credential;
    const legacyToken = await token(credential.client_id, credential.client_secret);
    const inLegacy = await rawRequest(stack().catalog_url, { method: 'POST', path: `/v1/${w.warehouse_id}/namespaces/v1.2/tables`, headers: { Authorization: `Bearer ${legacyToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ name: 't2', schema: sinkTestSchema }) });
    expect(inLegacy.status).toBe(200);
    const listed = await api('GET', `/v1/tables?warehouse=${w.warehouse_id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.namespaces_searched).toEqual(expect.arrayContaining(['ok', 'v1.2', 'a/b']));
    // A lone "." or ".." is a dot-segment no URL can carry: not searched, and no longer a failure.
    expect(listed.body.namespaces_searched).not.toContain('..');
    expect(listed.body.tables).toEqual(expect.arrayContaining([{ namespace: 'ok', name: 't', table: 'ok.t' }, { namespace: 'v1.2', name: 't2', table: 'v1.2.t2' }]));
    expect((await api('GET', `/v1/namespaces?warehouse=${w.warehouse_id}`)).status).toBe(200);
  }, 60_000);
});

describe('a repeated or array-shaped query parameter is 400 naming it, never a silently dropped filter', () => {
  test('control plane and identity, through the gateway and straight: 400 invalid_value', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/warehouses?project=a&project=b', 'project'],
      ['/v1/warehouses?project[x]=1', 'project'],
      ['/v1/warehouses?project[]=1', 'project'],
      [`/v1/connection?warehouse=${t.warehouseId}&level=read&level=write`, 'level'],
      [`/v1/tables?warehouse=${t.warehouseId}&namespace=ev&namespace=x`, 'namespace'],
      ['/v1/audit?action=a&action=b', 'action'],
      [`/v1/sinks?warehouse=${t.warehouseId}&warehouse=${t.warehouseId}`, 'warehouse'],
      ['/v1/api-keys?x=1&x=2', 'x'],
    ];
    for (const [path, field] of cases) {
      const err = envelope(await api('GET', path), 400, 'invalid_value');
      expect([path, err.field]).toEqual([path, field]);
      expect(err.message).toMatch(/repeated|array or object/);
    }
    const direct = await rawRequest(stack().services['control-plane'].url, { path: '/v1/warehouses?project=a&project=b', headers: { Authorization: `Bearer ${t.key}` } });
    expect(envelope(direct, 400, 'invalid_value').field).toBe('project');
    // Once is fine.
    const once = await api('GET', `/v1/warehouses?project=${encodeURIComponent((await api('GET', '/v1/projects')).body.projects[0].name)}`);
    expect(once.status).toBe(200);
  });

  test('the catalog, whose OpenAPI document repeats no parameter: 400 BadRequestException', async () => {
    for (const path of [
      '/v1/{wh}/namespaces?parent=ev&parent=x',
      '/v1/{wh}/namespaces?pageSize=1&pageSize=2',
      '/v1/{wh}/namespaces/ev/tables?pageToken=a&pageToken=b',
      '/v1/{wh}/namespaces/ev/tables/t?snapshots=all&snapshots=refs',
      '/v1/config?warehouse=a&warehouse=b',
      '/v1/{wh}/namespaces?parent[x]=ev',
    ]) {
      expect([path, iceberg(await cat('GET', path), 400, 'BadRequestException').message]).toEqual([path, expect.stringMatching(/repeated|array or object/)]);
    }
    expect((await cat('GET', '/v1/{wh}/namespaces?pageSize=1')).status).toBe(200);
  });
});

// Issue 27: every route built since the first round of these tests, with the
// rules added since — a lone surrogate (JSON.parse takes one; Postgres text
// turns it into U+FFFD and jsonb refuses it, which was a 500), a body that is
// not JSON (415, where it used to be 400 missing_field), a number sent as a
// string (refused, where "3" used to be read as 3) — each answered with its
// exact status and code, in the surface's own error model.
describe('routes built since: every malformed input a 4xx with its exact status and code', () => {
  /** The loopback address this block's identity requests come from: sign-up, login and device starts are budgeted per caller address. */
  const FROM = '127.0.0.117';
  const ids = { sink: '', uploader: '', agent: '', member: '', operatorKey: '', otherOrg: '' };
  const at = (path: string) => path
    .replace('{org}', t.orgId).replace('{wh}', t.warehouseId).replace('{sink}', ids.sink).replace('{uploader}', ids.uploader)
    .replace('{agent}', ids.agent).replace('{member}', ids.member).replace('{other_org}', ids.otherOrg);

  beforeAll(async () => {
    const sink = await gateway().post('/v1/sinks').set(bearer(t.key)).send({ name: `mi_${uniq()}`, table: 'ev.t', warehouse: t.warehouseId });
    const uploader = await gateway().post(`/v1/warehouses/${t.warehouseId}/uploaders`).set(bearer(t.key)).send({ name: `mi${uniq()}` });
    const agent = await gateway().post(`/v1/orgs/${t.orgId}/agents`).set(bearer(t.key)).send({ name: `mi-agent-${uniq()}` });
    expect([sink.status, uploader.status, agent.status]).toEqual([201, 201, 201]);
    ids.sink = sink.body.sink_id;
    ids.uploader = uploader.body.uploader_id;
    ids.agent = agent.body.agent_id;
    ids.member = (await newMember({ org_id: t.orgId, handle: '', name: '' })).principal_id;
    ids.operatorKey = (await newPrincipal('operator')).api_key;
    ids.otherOrg = (await newOrg()).org_id;
  }, 60_000);

  /**
   * Every JSON route of the control plane and identity built since, with a
   * body of its shape. Where a valid body would send mail, spend a budget or
   * change the tenant, one field holds a well-typed wrong value (an address
   * that is none, a level that does not exist), so no variant below goes
   * through.
   */
  const JSON_ROUTES: Array<[string, string, Record<string, unknown>]> = [
    // organisations: settings, policy, domains, members, invitations, agents
    ['PATCH', '/v1/orgs/{org}', { name: 'Renamed', domain_join: false }],
    ['PATCH', '/v1/orgs/{org}/policy', { agents: 'admins', public_catalogs: 'admins' }],
    ['POST', '/v1/orgs/{org}/domains', { domain: 'example.com' }],
    ['PATCH', '/v1/orgs/{org}/members/{member}', { role: 'member' }],
    ['POST', '/v1/orgs/{org}/invitations', { email: 'not-an-address', role: 'member' }],
    ['POST', '/v1/orgs/invitations/accept', { token: 'no-such-invitation' }],
    ['POST', '/v1/orgs/{org}/agents', { name: 'fz', role: 'nobody', grants: [{ warehouse_id: '{wh}', level: 'read' }] }],
    ['PATCH', '/v1/orgs/{org}/agents/{agent}', { name: 'fz', role: 'nobody', grants: [] }],
    // catalogs: restore, delete, uploaders, lifecycle, sinks and the device token
    ['POST', '/v1/warehouses/{wh}/restore', {}],
    ['DELETE', '/v1/warehouses/{wh}', { confirm: 'not-the-name' }],
    ['POST', '/v1/warehouses/{wh}/uploaders', { name: 'bad name!', prefix: 'in/', list: true, expires_at: '2000-01-01T00:00:00Z' }],
    ['PUT', '/v1/warehouses/{wh}/lifecycle', { rules: [{ id: 'r', prefix: 'logs/', expire_days: 0, enabled: true }] }],
    ['POST', '/v1/sinks/{sink}/device-token', { required_field: 'id', pinned_value: 'short', strip_fields: ['a'], preset: 'no-such-preset', preset_params: {} }],
    ['PATCH', '/v1/sinks/{sink}', { name: 'Not A Name', roll_seconds: 59, enabled: false }],
    ['POST', '/v1/onboard', { engine: 'no-such-engine', accept_terms: true, organization_name: 'O', handle: 'h', org_id: '{org}' }],
    // operator routes (the tenant is no operator; the operator's own calls are below)
    ['PATCH', '/v1/admin/orgs/{other_org}/limits', { plan: 'free', overrides: { warehouses: 3 }, note: 'n' }],
    // sign-up, recovery, login, sessions, passwords, the Terms, the account
    ['POST', '/v1/signup/start', { email: 'not-an-address', workspace: 'w', full_name: 'F', organization_name: 'O', handle: 'h' }],
    ['POST', '/v1/signup/verify', { email: 'nobody@example.com', code: '123456', accept_terms: true, engine: 'duckdb' }],
    ['POST', '/v1/recover/start', { email: 'not-an-address' }],
    ['POST', '/v1/recover/verify', { email: 'nobody@example.com', code: '123456' }],
    ['POST', '/v1/auth/signup', { email: 'not-an-address', full_name: 'F', organization_name: 'O', handle: 'h', return_to: '/app/account' }],
    ['POST', '/v1/auth/login', { email: 'not-an-address', password: 'a long enough passphrase' }],
    ['POST', '/v1/auth/refresh', { refresh_token: 'rt_nope_nope' }],
    ['POST', '/v1/auth/logout', { refresh_token: 'rt_nope_nope' }],
    ['POST', '/v1/auth/password/set', { token: 'no-such-link', password: 'a long enough passphrase' }],
    ['POST', '/v1/auth/password/reset/start', { email: 'not-an-address' }],
    ['POST', '/v1/auth/password/reset', { token: 'no-such-link', password: 'a long enough passphrase' }],
    ['POST', '/v1/auth/password/change', { current_password: 'wrong', new_password: 'a long enough passphrase' }],
    ['POST', '/v1/terms/accept', { version: 'no-such-version' }],
    ['DELETE', '/v1/me', { confirm: 'not-my-address@example.com' }],
    // device login and the OAuth consent
    ['POST', '/v1/auth/device', { client: 'cli', hostname: 'h', client_name: 'n', requested_level: 'admin', warehouses: [{ name: 'lake' }] }],
    ['POST', '/v1/auth/device/approve', { user_code: 'ABCD-EFGH', deny: false, warehouses: [{ name: 'lake', level: 'read' }] }],
    ['POST', '/v1/auth/device/token', { device_code: 'no-such-code' }],
    ['POST', '/v1/oauth/authorize/decision', { request_id: 'no-such-request', allow: true, grants: [{ warehouse_id: '{wh}', level: 'read' }], role: 'member' }],
  ];
  /** JSON routes that take no body, or an optional one: a body of another type is refused at the edge before they act. */
  const BODILESS: Array<[string, string]> = [
    ['POST', '/v1/warehouses/{wh}/rotate'], ['POST', '/v1/warehouses/{wh}/measure'], ['DELETE', '/v1/warehouses/{wh}/uploaders/{uploader}'],
    ['DELETE', '/v1/warehouses/{wh}/lifecycle'], ['DELETE', '/v1/sinks/{sink}/device-token'], ['DELETE', '/v1/orgs/{org}/agents/{agent}'],
    ['DELETE', '/v1/orgs/{org}/domains/example.com'], ['DELETE', '/v1/orgs/{org}/members/{member}'], ['DELETE', '/v1/auth/sessions/ses_nope'],
    ['DELETE', '/v1/warehouses/{wh}/public'], ['POST', '/v1/projects'], ['POST', '/v1/warehouses'],
  ];
  const send = (method: string, path: string, body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
    api(method, at(path), { headers, body, localAddress: FROM });

  test('a body that is not declared JSON is 415 unsupported_media_type (it was 400 missing_field), on every route, before any route acts', async () => {
    const failures: string[] = [];
    for (const [method, path] of [...JSON_ROUTES.map(([m, p]) => [m, p] as const), ...BODILESS]) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
        const res = await send(method, path, '{"name":"x"}', { 'Content-Type': type });
        if (res.status !== 415 || res.body?.error?.code !== 'unsupported_media_type' || res.body.error.request_id !== res.headers['x-request-id']) {
          failures.push(`${method} ${path} (${type}) -> ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
      // No Content-Type at all is no JSON either.
      const untyped = await api(method, at(path), { body: '{"name":"x"}', localAddress: FROM });
      if (untyped.status !== 415) failures.push(`${method} ${path} (untyped) -> ${untyped.status}`);
    }
    expect(failures).toEqual([]);
    // The issue's own example: a project posted as text is 415, not 400 missing_field.
    expect(envelope(await api('POST', '/v1/projects', { headers: { 'Content-Type': 'text/plain' }, body: '{"name":"p"}' }), 415, 'unsupported_media_type').accepts).toEqual(['application/json']);
    // The refused calls did nothing: the catalog credential still works (no rotation), the sink's device token and the uploader are still there.
    expect((await cat('GET', '/v1/{wh}/namespaces')).status).toBe(200);
    expect((await api('GET', `/v1/warehouses/${t.warehouseId}/uploaders`)).body.uploaders.map((u: { uploader_id: string; status: string }) => [u.uploader_id, u.status])).toContainEqual([ids.uploader, 'active']);
    // A route whose body is optional still takes none, and JSON with a charset or a +json type is JSON.
    expect((await api('POST', '/v1/terms/accept', { localAddress: FROM })).status).toBe(200);
    expect((await api('POST', '/v1/terms/accept', { localAddress: FROM, headers: { 'Content-Type': 'text/plain' }, body: '' })).status).toBe(200);
    expect((await send('POST', '/v1/terms/accept', '{}', { 'Content-Type': 'application/json; charset=utf-8' })).status).toBe(200);
    expect((await send('PATCH', '/v1/orgs/{org}', '{"domain_join":false}', { 'Content-Type': 'application/merge-patch+json' })).status).toBe(200);
  }, 120_000);

  test('a lone surrogate in a string or a key is 400 invalid_value naming the field, on every route (it reached Postgres: U+FFFD in text, a 500 in jsonb)', async () => {
    const failures: string[] = [];
    for (const [method, path] of JSON_ROUTES) {
      for (const [body, field] of [['{"name":"a\\ud800b"}', 'name'], ['{"x":{"\\udfff":1}}', 'x.\udfff'], ['{"list":["ok","\\ude00\\ud83d"]}', 'list.1']] as const) {
        const res = await send(method, path, body);
        if (res.status !== 400 || res.body?.error?.code !== 'invalid_value' || res.body.error.field !== field || !/lone surrogate/.test(res.body.error.message)) {
          failures.push(`${method} ${path} ${body} -> ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
    // A well-formed pair (an emoji) is one character, and passes.
    const named = await send('PATCH', '/v1/orgs/{org}', '{"name":"Rockets \\ud83d\\ude80"}');
    expect([named.status, named.body.name]).toEqual([200, 'Rockets \u{1F680}']);
  }, 60_000);

  test('a NUL in a string, bad JSON and nesting past 256 levels: 400 invalid_value on every route', async () => {
    const failures: string[] = [];
    const deep = `{"x":${'['.repeat(300)}${']'.repeat(300)}}`;
    for (const [method, path] of JSON_ROUTES) {
      for (const [body, field, pattern] of [['{"name":"a\\u0000"}', 'name', /NUL/], ['{"name":', 'body', /not valid JSON/], [deep, 'body', /deeper than 256/]] as const) {
        const res = await send(method, path, body);
        if (res.status !== 400 || res.body?.error?.code !== 'invalid_value' || res.body.error.field !== field || !pattern.test(res.body.error.message)) {
          failures.push(`${method} ${path} ${body.slice(0, 20)} -> ${res.status} ${res.text.slice(0, 160)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 60_000);

  test('a broken percent-escape or a NUL in a path parameter or a query parameter, a repeated or bracketed query parameter: 400 invalid_value naming it', async () => {
    const paths = [
      'GET /v1/orgs/{id}', 'GET /v1/orgs/{id}/policy', 'GET /v1/orgs/{id}/members', 'GET /v1/orgs/{id}/invitations', 'GET /v1/orgs/{id}/agents',
      'GET /v1/orgs/{org}/agents/{id}', 'DELETE /v1/orgs/{org}/domains/{id}', 'POST /v1/warehouses/{id}/restore', 'GET /v1/warehouses/{id}/uploaders',
      'DELETE /v1/warehouses/{wh}/uploaders/{id}', 'GET /v1/warehouses/{id}/lifecycle', 'GET /v1/warehouses/{id}/blobs', 'GET /v1/warehouses/{id}/blobs/presign',
      'POST /v1/warehouses/{id}/blobs/upload', 'GET /v1/sinks/{id}', 'POST /v1/sinks/{id}/device-token', 'POST /v1/sinks/{id}/test', 'DELETE /v1/auth/sessions/{id}',
      'GET /v1/admin/orgs/{id}/limits', 'GET /v1/admin/orgs/{id}/limits/audit', 'GET /v1/handles/{id}', 'GET /v1/public/{id}/lake/connection',
    ];
    const failures: string[] = [];
    for (const line of paths) {
      const [method, path] = line.split(' ');
      for (const bad of ['%zz', '%E0%A4%A', '%ED%A0%80', 'a%00b']) {
        const res = await api(method, at(path).replace('{id}', bad), { localAddress: FROM });
        if (res.status !== 400 || res.body?.error?.code !== 'invalid_value' || res.body.error.field !== 'path') failures.push(`${line} ${bad} -> ${res.status} ${res.text.slice(0, 120)}`);
      }
    }
    const queries: Array<[string, string]> = [
      ['/v1/warehouses/{wh}/blobs?prefix=a&prefix=b', 'prefix'], ['/v1/warehouses/{wh}/blobs?max_keys[x]=1', 'max_keys'],
      ['/v1/warehouses/{wh}/blobs/presign?key=a&key=b', 'key'], ['/v1/warehouses/{wh}/uploaders?include_revoked=true&include_revoked=false', 'include_revoked'],
      ['/v1/warehouses/{wh}/lifecycle?include_xml[]=true', 'include_xml'], ['/v1/orgs/{org}/agents?include_revoked=1&include_revoked=2', 'include_revoked'],
      ['/v1/auth/device/pending?user_code=ABCD-EFGH&user_code=ABCD-EFGH', 'user_code'], ['/v1/auth/device/status?user_code[a]=1', 'user_code'],
      ['/v1/oauth/authorize/pending?request_id=a&request_id=b', 'request_id'], ['/v1/admin/orgs/{org}/limits/audit?limit=1&limit=2', 'limit'],
      ['/v1/sinks?warehouse=a&include_deleted=true&include_deleted=true', 'include_deleted'], ['/v1/usage?days=1&days=2', 'days'],
    ];
    for (const [path, field] of queries) {
      const res = await api('GET', at(path), { localAddress: FROM });
      if (res.status !== 400 || res.body?.error?.code !== 'invalid_value' || res.body.error.field !== field) failures.push(`${path} -> ${res.status} ${res.text.slice(0, 120)}`);
    }
    // A broken escape in a query name or value (it used to be read as U+FFFD, a value nobody sent).
    for (const [path, field] of [
      ['/v1/auth/device/pending?user_code=%E0%A4%A', 'user_code'], ['/v1/orgs/{org}/agents?include_revoked=%ED%A0%80', 'include_revoked'],
      ['/v1/admin/orgs/{org}/limits/audit?limit=1%', 'limit'], ['/v1/usage?da%zzys=1', 'da%zzys'],
    ] as const) {
      const res = await api('GET', at(path), { localAddress: FROM });
      if (res.status !== 400 || res.body?.error?.code !== 'invalid_value' || res.body.error.field !== field) failures.push(`${path} -> ${res.status} ${res.text.slice(0, 120)}`);
    }
    expect(envelope(await api('GET', at('/v1/warehouses/{wh}/blobs?prefix=%zz'), { localAddress: FROM }), 400, 'invalid_prefix').field).toBe('prefix');
    expect(envelope(await api('GET', at('/v1/warehouses/{wh}/blobs/presign?key=%zz'), { localAddress: FROM }), 400, 'invalid_key').field).toBe('key');
    // An escaped % and a + are read as sent.
    expect((await api('GET', at('/v1/warehouses/{wh}/blobs/presign?key=100%25+done'), { localAddress: FROM })).body.key).toBe('100% done');
    // A NUL in a query value: the blobs' prefix and key answer their own codes, the others invalid_value.
    expect(envelope(await api('GET', at('/v1/warehouses/{wh}/blobs?prefix=a%00'), { localAddress: FROM }), 400, 'invalid_prefix').field).toBe('prefix');
    expect(envelope(await api('GET', at('/v1/warehouses/{wh}/blobs/presign?key=a%00'), { localAddress: FROM }), 400, 'invalid_key').field).toBe('key');
    expect(envelope(await api('GET', at('/v1/usage?days=1%00'), { localAddress: FROM }), 400, 'invalid_value').field).toBe('days');
    expect(failures).toEqual([]);
  }, 60_000);

  test('wrong types in any field, or as the whole body: a 4xx in the envelope on every route, never a 5xx', async () => {
    const failures: string[] = [];
    const asBody = (v: unknown) => JSON.stringify(v, (_k, x) => (typeof x === 'string' ? at(x) : x));
    for (const [method, path, base] of JSON_ROUTES) {
      for (const body of variants(base)) {
        const res = await send(method, path, asBody(body));
        if (res.status >= 500 || res.status < 400 && res.status >= 300 || res.status >= 400 && !res.body?.error?.code) {
          failures.push(`${method} ${path} ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
        }
      }
    }
    // The operator's own calls reach the limits route's body rules (on an organisation of nobody's).
    for (const body of variants({ plan: 'no-such-plan', overrides: { warehouses: 3, storage_bytes: null }, note: 'n' })) {
      const res = await api('PATCH', at('/v1/admin/orgs/{other_org}/limits'), { ...json(body), headers: { Authorization: `Bearer ${ids.operatorKey}`, 'Content-Type': 'application/json' } });
      if (res.status >= 500 || res.status >= 400 && !res.body?.error?.code) failures.push(`operator PATCH limits ${JSON.stringify(body)} -> ${res.status} ${res.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
  }, 240_000);

  test('numbers and booleans sent as strings are wrong types: 400 invalid_value, never read as the value ("3" was taken as 3)', async () => {
    const project = (await api('GET', '/v1/projects')).body.projects[0].project_id;
    for (const v of ['3', '2', ' 3', '3.0']) {
      const create = await api('POST', '/v1/warehouses', json({ project_id: project, name: `str_${uniq()}`, default_format_version: v }));
      expect([v, envelope(create, 400, 'invalid_value').field]).toEqual([v, 'default_format_version']);
      const patch = await api('PATCH', `/v1/warehouses/${t.warehouseId}`, json({ default_format_version: v }));
      expect([v, envelope(patch, 400, 'invalid_value').field]).toEqual([v, 'default_format_version']);
    }
    // As numbers they are taken (the value already set changes nothing).
    expect((await api('PATCH', `/v1/warehouses/${t.warehouseId}`, json({ default_format_version: 2 }))).status).toBe(200);
    const cases: Array<[string, string, Record<string, unknown>, string]> = [
      ['POST', `/v1/tables`, { warehouse_id: t.warehouseId, namespace: 'ev', name: `s_${uniq()}`, schema: sinkTestSchema, format_version: '3' }, 'format_version'],
      ['POST', `/v1/warehouses/${t.warehouseId}/uploaders`, { name: `s${uniq()}`, list: 'true' }, 'list'],
      ['PATCH', `/v1/orgs/${t.orgId}`, { domain_join: 'false' }, 'domain_join'],
      ['POST', '/v1/sinks', { name: `s_${uniq()}`, table: 'ev.t', warehouse: t.warehouseId, roll_seconds: '300' }, 'roll_seconds'],
      ['PUT', `/v1/warehouses/${t.warehouseId}/lifecycle`, { rules: [{ prefix: 'x/', expire_days: '7' }] }, 'rules[0].expire_days'],
      ['PUT', `/v1/warehouses/${t.warehouseId}/lifecycle`, { rules: [{ prefix: 'x/', expire_days: 7, enabled: 'true' }] }, 'rules[0].enabled'],
      ['POST', '/v1/auth/device/approve', { user_code: 'ABCD-EFGH', deny: 'true' }, 'deny'],
    ];
    for (const [method, path, body, field] of cases) {
      expect([path, envelope(await api(method, path, { ...json(body), localAddress: FROM }), 400, 'invalid_value').field]).toEqual([path, field]);
    }
    const operator = await api('PATCH', `/v1/admin/orgs/${ids.otherOrg}/limits`, { ...json({ overrides: { warehouses: '3' } }), headers: { Authorization: `Bearer ${ids.operatorKey}`, 'Content-Type': 'application/json' } });
    expect(envelope(operator, 400, 'invalid_value').field).toBe('overrides.warehouses');
    // The catalog too: register's overwrite is a boolean ("true" read as false refused a replacement that was asked for).
    const register = await cat('POST', '/v1/{wh}/namespaces/ev/register', json({ name: 't', 'metadata-location': 's3://nowhere/x.metadata.json', overwrite: 'true' }));
    expect(iceberg(register, 400, 'BadRequestException').message).toMatch(/overwrite must be a boolean/);
  }, 60_000);

  test('the catalog: a body that is not JSON is 415 and a lone surrogate 400, in the Iceberg model; its token route still takes a form', async () => {
    for (const [method, path] of [['POST', '/v1/{wh}/namespaces'], ['POST', '/v1/{wh}/namespaces/ev/tables'], ['POST', '/v1/{wh}/namespaces/ev/tables/t'], ['POST', '/v1/{wh}/tables/rename'], ['POST', '/v1/{wh}/namespaces/ev/properties']]) {
      iceberg(await cat(method, path, { headers: { 'Content-Type': 'text/plain' }, body: '{"namespace":["x"]}' }), 415, 'BadRequestException');
      expect([path, iceberg(await cat(method, path, json('{"namespace":["a\\ud800"]}')), 400, 'BadRequestException').message]).toEqual([path, expect.stringMatching(/lone surrogate/)]);
    }
    const { client_id: id, client_secret: secret } = t.credential;
    const form = await rawRequest(stack().catalog_url, { method: 'POST', path: '/v1/oauth/tokens', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=client_credentials&client_id=${id}&client_secret=${secret}` });
    expect(form.status).toBe(200);
    const surrogate = await rawRequest(stack().catalog_url, { method: 'POST', path: '/v1/oauth/tokens', ...json(`{"grant_type":"client_credentials","client_id":"a\\ud800","client_secret":"b"}`) });
    expect([surrogate.status, surrogate.body]).toEqual([400, { error: 'invalid_request', error_description: expect.stringMatching(/lone surrogate/) }]);
  });

  describe('the OAuth endpoints, in the flat form {error, error_description}', () => {
    /** Registrations are budgeted per caller address (20 an hour), spent before a body is read: this test's come from an address of its own. */
    const REGISTER_FROM = '127.0.0.118';
    const register = (body: string, headers: Record<string, string> = { 'Content-Type': 'application/json' }) =>
      rawRequest(stack().base_url, { method: 'POST', path: '/oauth/register', headers, body, localAddress: REGISTER_FROM });
    const flatForm = (res: RawResponse, status: number, error: string) => {
      expect([res.status, res.body]).toEqual([status, { error, error_description: expect.any(String) }]);
      return res.body.error_description as string;
    };
    const client = { client_name: 'Malformed Tool', redirect_uris: ['https://tool.example/cb'] };

    test('POST /oauth/register: a lone surrogate is 400 invalid_client_metadata (it was a 500), and so is every other malformed body', async () => {
      expect(flatForm(await register('{"client_name":"\\ud800","redirect_uris":["https://tool.example/cb"]}'), 400, 'invalid_client_metadata')).toMatch(/lone surrogate/);
      expect(flatForm(await register('{"client_name":"ok","redirect_uris":["https://tool.example/\\udc00"]}'), 400, 'invalid_client_metadata')).toMatch(/redirect_uris\.0/);
      expect(flatForm(await register('{"client_name":"a\\u0000","redirect_uris":[]}'), 400, 'invalid_client_metadata')).toMatch(/NUL/);
      flatForm(await register('{"client_name":'), 400, 'invalid_client_metadata');
      flatForm(await register(`{"client_name":${'['.repeat(300)}${']'.repeat(300)}}`), 400, 'invalid_client_metadata');
      expect(flatForm(await register(JSON.stringify(client), { 'Content-Type': 'text/plain' }), 415, 'invalid_client_metadata')).toMatch(/JSON body/);
      // Wrong types reach the registration's own rules (each spends the address's budget: a few, well under 20).
      for (const body of [{ ...client, client_name: 5 }, { ...client, redirect_uris: 'https://tool.example/cb' }, { ...client, application_type: ['web'] }, { ...client, grant_types: [null] }, []]) {
        flatForm(await register(JSON.stringify(body)), 400, 'invalid_client_metadata');
      }
      // The well-formed registration still works; nothing was stored for the refused ones (no 500 left a half-written row).
      const ok = await register(JSON.stringify(client));
      expect([ok.status, ok.body.client_id]).toEqual([201, expect.stringMatching(/^dcr_/)]);
    });

    test('POST /oauth/token and /oauth/revoke: forms are still taken; JSON with a lone surrogate is 400 invalid_request', async () => {
      const token = (body: string, type: string) => rawRequest(stack().base_url, { method: 'POST', path: '/oauth/token', headers: { 'Content-Type': type }, body, localAddress: REGISTER_FROM });
      const clientId = 'https://tool.example/client.json';
      flatForm(await token(`grant_type=authorization_code&code=nope&client_id=${encodeURIComponent(clientId)}&code_verifier=v&redirect_uri=https%3A%2F%2Ft%2Fcb`, 'application/x-www-form-urlencoded'), 400, 'invalid_grant');
      expect(flatForm(await token(`{"grant_type":"refresh_token","refresh_token":"\\ud800","client_id":"${clientId}"}`, 'application/json'), 400, 'invalid_request')).toMatch(/lone surrogate/);
      flatForm(await token(`{"grant_type":"refresh_token","refresh_token":"a\\u0000","client_id":"${clientId}"}`, 'application/json'), 400, 'invalid_request');
      flatForm(await token(`grant_type=refresh_token&refresh_token=a%00&client_id=${encodeURIComponent(clientId)}`, 'application/x-www-form-urlencoded'), 400, 'invalid_grant');
      // A body of a type the endpoint does not read is no parameters at all: the request the RFC calls invalid.
      flatForm(await token('grant_type=refresh_token', 'text/plain'), 400, 'invalid_request');
      const revoke = await rawRequest(stack().base_url, { method: 'POST', path: '/oauth/revoke', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'token=nope' });
      expect([revoke.status, revoke.body]).toEqual([200, {}]);
      flatForm(await rawRequest(stack().base_url, { method: 'POST', path: '/oauth/revoke', ...json('{"token":"\\ud800"}') }), 400, 'invalid_request');
    });

    test('GET /oauth/authorize: a NUL, a broken escape or a repeated parameter is 400 invalid_request, never a redirect', async () => {
      for (const query of ['client_id=a%00', 'client_id=%zz', 'client_id=a&client_id=b', 'state[x]=1', 'redirect_uri=%ED%A0%80', 'state=%E0%A4%A', 'sta%zzte=1']) {
        const res = await rawRequest(stack().base_url, { path: `/oauth/authorize?${query}`, localAddress: REGISTER_FROM });
        expect([query, res.status, res.headers.location]).toEqual([query, 400, undefined]);
        expect(res.body).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      }
    });
  });

  test('the device route on {ingest_url}: a broken escape or NUL in the token, a repeated parameter, an unread type: 4xx in the envelope', async () => {
    const ingest = (path: string, headers: Record<string, string> = {}, body?: string) => rawRequest(stack().ingest_url, { method: 'POST', path, headers, body });
    for (const path of ['/d/%zz', '/d/a%00b', '/d/%ED%A0%80']) expect([path, envelope(await ingest(path, { 'Content-Type': 'application/json' }, '{}'), 400, 'invalid_value').field]).toEqual([path, 'path']);
    expect(envelope(await ingest('/d/fdt_x?a=1&a=2', { 'Content-Type': 'application/json' }, '{}'), 400, 'invalid_value').field).toBe('a');
    const device = await gateway().post(`/v1/sinks/${ids.sink}/device-token`).set(bearer(t.key)).send({});
    expect(device.status).toBe(201);
    const path = new URL(device.body.device_url).pathname;
    envelope(await ingest(path, { 'Content-Type': 'image/png' }, 'x'), 415, 'unsupported_media_type');
    // A device body is data, stored as sent: a lone surrogate escape is not the edge's to refuse.
    expect((await ingest(path, { 'Content-Type': 'application/json' }, '{"id":1,"msg":"\\ud800"}')).status).toBe(202);
  });
});

describe('requests Node refuses before any route: the error model, not an empty body', () => {
  const hugeHeaders = { 'X-Pad': 'a'.repeat(20_000) };

  test('a header block over Node\'s 16 KiB is 431 in the envelope, at the gateway and at each service', async () => {
    const s = stack().services;
    for (const url of [stack().base_url, s.identity.url, s['control-plane'].url, s['ingest-gateway'].url]) {
      const res = await rawRequest(url, { path: '/v1/warehouses', headers: hugeHeaders });
      expect([url, res.status, res.headers['content-type']]).toEqual([url, 431, 'application/json; charset=utf-8']);
      expect(envelope(res, 431, 'headers_too_large')).toMatchObject({ limit: 16384 });
      expect(res.headers['cache-control']).toBe('no-store');
    }
  });

  test('the catalog answers 431 in the Iceberg model', async () => {
    const res = await rawRequest(stack().catalog_url, { path: `/v1/${t.warehouseId}/namespaces`, headers: hugeHeaders });
    iceberg(res, 431, 'BadRequestException');
  });

  test('a request Node cannot parse (a NUL in the request line, garbage) is 400 in the error model', async () => {
    for (const bytes of ['GET /v1/a\0b HTTP/1.1\r\nHost: x\r\n\r\n', 'NOT HTTP AT ALL\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n']) {
      envelope(await rawExchange(new URL(stack().base_url), Buffer.from(bytes, 'latin1')), 400, 'invalid_request');
      iceberg(await rawExchange(new URL(stack().catalog_url), Buffer.from(bytes, 'latin1')), 400, 'BadRequestException');
    }
  });
});

describe('routes not built yet authenticate first: 401 without a usable credential, 501 only for a caller', () => {
  const anon = (method: string, path: string, headers: Record<string, string> = {}) =>
    rawRequest(stack().base_url, { method, path, headers: { ...headers, 'Content-Type': 'application/json' }, body: '{}' });

  test('control-plane and identity caller routes', async () => {
    const routes: Array<[string, string]> = [
      ['GET', '/v1/usage'], ['POST', '/v1/orgs/org_x/agents'], ['GET', '/v1/orgs'], ['GET', '/v1/admin/plans'], ['POST', '/v1/query'],
      ['GET', `/v1/warehouses/${t.warehouseId}/uploaders`], ['DELETE', `/v1/warehouses/${t.warehouseId}`], ['PATCH', '/v1/sinks/any-sink'],
      ['GET', '/v1/auth/device/pending?user_code=ABCD-EFGH'], ['POST', '/v1/oauth/authorize/decision'], ['DELETE', '/v1/me'],
      // Built: the same refusals without a credential of this surface; with the key, an answer of their own.
      ['GET', '/v1/auth/sessions'], ['POST', '/v1/auth/password/change'], ['GET', '/v1/terms'],
    ];
    const built = new Set(['/v1/usage', '/v1/query', '/v1/admin/plans', `/v1/warehouses/${t.warehouseId}`, `/v1/warehouses/${t.warehouseId}/uploaders`, '/v1/auth/sessions', '/v1/auth/password/change', '/v1/terms', '/v1/me', '/v1/orgs', '/v1/orgs/org_x/agents', '/v1/auth/device/pending?user_code=ABCD-EFGH', '/v1/oauth/authorize/decision', '/v1/sinks/any-sink']);
    const otherSurfaces = { catalog: `Bearer ${t.catalogToken}`, 'send key': `Bearer fsk_${'0'.repeat(16)}_${'a'.repeat(43)}`, 'catalog secret': `Bearer ${t.credential.client_secret}`, garbage: 'Bearer x' };
    for (const [method, path] of routes) {
      const none = await anon(method, path);
      expect([path, envelope(none, 401, 'unauthorized').message]).toEqual([path, expect.any(String)]);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      for (const [what, header] of Object.entries(otherSurfaces)) {
        const res = await anon(method, path, { Authorization: header });
        expect([path, what, res.status]).toEqual([path, what, 401]);
      }
      const withKey = await anon(method, path, { Authorization: `Bearer ${t.key}` });
      if (built.has(path)) expect([path, withKey.status < 500 && withKey.status !== 401]).toEqual([path, true]);
      else expect([path, envelope(withKey, 501, 'not_implemented').code]).toEqual([path, 'not_implemented']);
    }
  });

  test('routes the spec leaves open to anyone still answer 501 without a credential', async () => {
    // Built since: revocation answers {} to anyone, whatever it was sent (RFC 7009, the spec's "always {}").
    const revoke = await anon('POST', '/oauth/revoke');
    expect([revoke.status, revoke.body]).toEqual([200, {}]);
    // Built since: the token endpoint refuses an empty body in the flat OAuth form.
    const token = await anon('POST', '/oauth/token');
    expect([token.status, token.body]).toEqual([400, { error: 'invalid_request', error_description: expect.any(String) }]);
    // Built since: the public connection answers without a credential.
    envelope(await anon('GET', '/v1/public/some-handle/some-catalog/connection'), 404, 'public_catalog_not_found');
  });

  test('the catalog: 401 NotAuthorizedException without a catalog token (an API key is none), 200 with one', async () => {
    const path = '/v1/{wh}/namespaces/ev/functions';
    iceberg(await rawRequest(stack().catalog_url, { method: 'GET', path: path.replace('{wh}', t.warehouseId) }), 401, 'NotAuthorizedException');
    iceberg(await cat('GET', path, { headers: { Authorization: `Bearer ${t.key}` } }), 401, 'NotAuthorizedException');
    const listed = await cat('GET', path);
    expect(listed.status).toBe(200);
    expect(Array.isArray(listed.body.identifiers)).toBe(true);
  });
});
