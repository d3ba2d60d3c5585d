import { readFileSync } from 'node:fs';
import { rawExchange, rawRequest, type RawResponse } from '../support/raw-http';
import { token } from './catalog-helpers';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { db, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Issue 14 §4: malformed input is a 4xx in the surface's error model, never a
// 5xx. Every request here is written byte for byte (tests/support/raw-http),
// because the clients the other tests use repair or refuse exactly the input
// under test: broken percent-escapes, NUL bytes, repeated query parameters,
// header blocks past Node's limit.

interface Tenant {
  key: string;
  warehouseId: string;
  warehouseName: string;
  catalogToken: string;
  credential: { client_id: string; client_secret: string };
}

let t: Tenant;

beforeAll(async () => {
  const { admin } = await newOrgWithAdmin();
  const project = await newProject(admin.api_key);
  const w = await newWarehouse(admin.api_key, project.project_id, `lake_${uniq()}`);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: sinkTestSchema }).expect(201);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(admin.api_key)).expect(200)).body.catalog_credential;
  t = { key: admin.api_key, warehouseId: w.warehouse_id, warehouseName: w.name, credential, catalogToken: await token(credential.client_id, credential.client_secret) };
}, 60_000);

const json = (value: unknown) => ({ headers: { 'Content-Type': 'application/json' }, body: typeof value === 'string' ? value : JSON.stringify(value) });

/** Through the public gateway with the tenant's API key. */
const api = (method: string, path: string, extra: { headers?: Record<string, string>; body?: string } = {}) =>
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

  const wrong: unknown[] = ['x', 5, -1.5, true, null, [], ['x'], {}, { a: 1 }, [[[]]]];

  /** Every top-level field of `base` replaced by each wrong value in turn, and the whole body replaced too. */
  function variants(base: Record<string, unknown>): unknown[] {
    const out: unknown[] = [...wrong];
    for (const key of Object.keys(base)) for (const v of wrong) out.push({ ...base, [key]: v });
    return out;
  }

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
    const built = new Set(['/v1/usage', '/v1/admin/plans', `/v1/warehouses/${t.warehouseId}`, `/v1/warehouses/${t.warehouseId}/uploaders`, '/v1/auth/sessions', '/v1/auth/password/change', '/v1/terms', '/v1/me', '/v1/orgs', '/v1/orgs/org_x/agents', '/v1/auth/device/pending?user_code=ABCD-EFGH', '/v1/oauth/authorize/decision']);
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

  test('the catalog: 401 NotAuthorizedException without a catalog token (an API key is none), 501 with one', async () => {
    const path = '/v1/{wh}/namespaces/ev/tables/t/plan';
    iceberg(await rawRequest(stack().catalog_url, { method: 'POST', path: path.replace('{wh}', t.warehouseId), ...json({}) }), 401, 'NotAuthorizedException');
    iceberg(await cat('POST', path, { headers: { Authorization: `Bearer ${t.key}`, 'Content-Type': 'application/json' }, body: '{}' }), 401, 'NotAuthorizedException');
    iceberg(await cat('POST', path, json({})), 501, 'NotImplementedException');
  });
});
