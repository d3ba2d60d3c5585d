import { randomUUID } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import type request from 'supertest';
import { adminStorage } from '../support/store';
import { catalog } from './catalog-helpers';
import { bearer, gateway, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { sinkTestSchema } from './sink-helpers';
import type { NewPrincipal } from './helpers';

// Two tenants. Tenant A presents tenant B's ids, names and locations to
// every control-plane and catalog route that takes one. For each route the
// answer must be a refusal, and the same refusal A gets for a value that
// never existed (status, code, extras, and the message with the value put
// aside): nothing in it tells A whether B's resource exists. Afterwards
// every object of B's is where it was, and B's catalog still works.

interface Tenant {
  admin: NewPrincipal;
  orgId: string;
  project: { project_id: string; name: string };
  w: { warehouse_id: string; name: string; bucket: string; blob_bucket: string };
  sink: { sink_id: string; name: string; send_key: string };
  catalogCredential: { client_id: string; client_secret: string };
  catalogToken: string;
  tableLocation: string;
  metadataLocation: string;
}

let a: Tenant;
let b: Tenant;

async function catalogToken(c: { client_id: string; client_secret: string }): Promise<string> {
  const res = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', ...c });
  if (res.status !== 200) throw new Error(`token: ${res.status} ${res.text}`);
  return res.body.access_token;
}

async function tenant(): Promise<Tenant> {
  const { org, admin } = await newOrgWithAdmin();
  const key = admin.api_key;
  const project = await newProject(key);
  const w = await newWarehouse(key, project.project_id, `lake_${uniq()}`);
  await gateway().post('/v1/tables').set(bearer(key)).send({ warehouse_id: w.warehouse_id, namespace: 'ev', name: 't', schema: sinkTestSchema }).expect(201);
  const sink = (await gateway().post('/v1/sinks').set(bearer(key)).send({ name: `s_${uniq()}`, table: 'ev.t', warehouse: w.warehouse_id }).expect(201)).body;
  const catalogCredential = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(key)).expect(200)).body.catalog_credential;
  const token = await catalogToken(catalogCredential);
  const loaded = (await catalog().get(`/v1/${w.warehouse_id}/namespaces/ev/tables/t`).set(bearer(token)).expect(200)).body;
  return {
    admin, orgId: org.org_id, project, w, sink, catalogCredential, catalogToken: token,
    tableLocation: loaded.metadata.location, metadataLocation: loaded['metadata-location'],
  };
}

async function objectsOf(bucket: string): Promise<string[]> {
  const out = await adminStorage().s3.send(new ListObjectsV2Command({ Bucket: bucket }));
  return (out.Contents ?? []).map((o) => `${o.Key} ${o.ETag} ${o.Size}`).sort();
}

let bObjectsBefore: string[];

beforeAll(async () => {
  [a, b] = await Promise.all([tenant(), tenant()]);
  bObjectsBefore = [...await objectsOf(b.w.bucket), ...await objectsOf(b.w.blob_bucket)];
}, 60_000);

/** What a refusal says, with the asked value put aside: two answers with equal shapes tell nothing apart. */
function shape(res: request.Response, value: string): unknown {
  const hide = (text: string) => text.split(value).join('<value>');
  const err = res.body?.error;
  if (err && typeof err === 'object') {
    const { request_id: _rid, message, ...extras } = err as Record<string, unknown>;
    return { status: res.status, message: hide(String(message)), extras: JSON.parse(hide(JSON.stringify(extras))) };
  }
  return { status: res.status, body: hide(res.text) };
}

/**
 * A route call with one of B's values, and the same call with a value that
 * never existed: both refused (4xx), and indistinguishable.
 */
async function refusedAlike(send: (value: string) => Promise<request.Response>, theirs: string, ghost: string): Promise<void> {
  const [mine, never] = [await send(theirs), await send(ghost)];
  expect([theirs, mine.status >= 400 && mine.status < 500]).toEqual([theirs, true]);
  expect(shape(mine, theirs)).toEqual(shape(never, ghost));
}

const ghostId = () => randomUUID();
const A = () => bearer(a.admin.api_key);

describe('control plane: A with B\'s catalog (by id and by name)', () => {
  const routes: Array<[string, (w: string) => Promise<request.Response>]> = [
    ['GET /v1/warehouses/{id}', (w) => gateway().get(`/v1/warehouses/${w}`).set(A())],
    ['PATCH /v1/warehouses/{id}', (w) => gateway().patch(`/v1/warehouses/${w}`).set(A()).send({ default_format_version: 3 })],
    ['POST /v1/warehouses/{id}/rotate', (w) => gateway().post(`/v1/warehouses/${w}/rotate`).set(A())],
    ['POST /v1/warehouses/{id}/public', (w) => gateway().post(`/v1/warehouses/${w}/public`).set(A()).send({ confirm: w })],
    ['DELETE /v1/warehouses/{id}/public', (w) => gateway().delete(`/v1/warehouses/${w}/public`).set(A())],
    ['POST /v1/warehouses/{id}/measure', (w) => gateway().post(`/v1/warehouses/${w}/measure`).set(A())],
    ['GET /v1/warehouses/{id}/grants', (w) => gateway().get(`/v1/warehouses/${w}/grants`).set(A())],
    ['PUT /v1/warehouses/{id}/grants/{p}', (w) => gateway().put(`/v1/warehouses/${w}/grants/${b.admin.principal_id}`).set(A()).send({ level: 'read' })],
    ['DELETE /v1/warehouses/{id}/grants/{p}', (w) => gateway().delete(`/v1/warehouses/${w}/grants/${b.admin.principal_id}`).set(A())],
    ['GET /v1/connection', (w) => gateway().get('/v1/connection').query({ warehouse: w }).set(A())],
    ['GET /v1/namespaces', (w) => gateway().get('/v1/namespaces').query({ warehouse: w }).set(A())],
    ['GET /v1/tables', (w) => gateway().get('/v1/tables').query({ warehouse: w }).set(A())],
    ['GET /v1/table', (w) => gateway().get('/v1/table').query({ warehouse: w, namespace: 'ev', name: 't' }).set(A())],
    ['PATCH /v1/table', (w) => gateway().patch('/v1/table').set(A()).send({ warehouse_id: w, namespace: 'ev', name: 't', properties: { owner: 'a' } })],
    ['POST /v1/credentials', (w) => gateway().post('/v1/credentials').set(A()).send({ warehouse_id: w, namespace: 'ev', name: 't' })],
    ['POST /v1/tables', (w) => gateway().post('/v1/tables').set(A()).send({ warehouse_id: w, namespace: 'ev', name: `x${uniq()}`, schema: sinkTestSchema })],
    ['POST /v1/sinks', (w) => gateway().post('/v1/sinks').set(A()).send({ name: `s${uniq()}`, table: 'ev.t', warehouse: w })],
    ['GET /v1/sinks?warehouse', (w) => gateway().get('/v1/sinks').query({ warehouse: w }).set(A())],
  ];
  test.each(routes)('%s', async (_name, send) => {
    await refusedAlike(send, b.w.warehouse_id, ghostId());
    await refusedAlike(send, b.w.name, `lake_${uniq()}`);
  });
});

describe('control plane: A with B\'s project, organisation, sink, key and principal', () => {
  test('a catalog in B\'s project, and B\'s project as a filter', async () => {
    for (const p of [b.project.project_id, b.project.name]) {
      await refusedAlike((v) => gateway().post('/v1/warehouses').set(A()).send({ project_id: v, name: `w_${uniq()}` }), p, `p-${uniq()}`);
      await refusedAlike((v) => gateway().get('/v1/warehouses').query({ project: v }).set(A()), p, `p-${uniq()}`);
    }
  });

  test('a project in B\'s organisation, and B\'s organisation\'s audit log', async () => {
    await refusedAlike((v) => gateway().post('/v1/projects').set(A()).send({ name: `p-${uniq()}`, org_id: v }), b.orgId, `org_${uniq()}${uniq()}`);
    await refusedAlike((v) => gateway().get('/v1/audit').query({ org_id: v }).set(A()), b.orgId, `org_${uniq()}${uniq()}`);
  });

  test.each([
    ['GET /v1/sinks/{id}', (s: string) => gateway().get(`/v1/sinks/${s}`).set(A())],
    ['DELETE /v1/sinks/{id}', (s: string) => gateway().delete(`/v1/sinks/${s}`).set(A())],
    ['POST /v1/sinks/{id}/device-token', (s: string) => gateway().post(`/v1/sinks/${s}/device-token`).set(A()).send({})],
    ['DELETE /v1/sinks/{id}/device-token', (s: string) => gateway().delete(`/v1/sinks/${s}/device-token`).set(A())],
    ['POST /v1/sinks/{id}/test', (s: string) => gateway().post(`/v1/sinks/${s}/test`).set(A()).set('Content-Type', 'application/json').send('{"id":1}')],
    ['POST /v1/sinks/{id} with A\'s send key', (s: string) => gateway().post(`/v1/sinks/${s}`).set({ Authorization: `Bearer ${a.sink.send_key}`, 'Idempotency-Key': `b-${uniq()}`, 'Content-Type': 'application/json' }).send('[{"id":1}]')],
  ])('%s', async (_name, send) => {
    await refusedAlike(send, b.sink.sink_id, `snk_${uniq()}${uniq()}`);
    await refusedAlike(send, b.sink.name, `s_${uniq()}`);
  });

  test('B\'s API key and B\'s principal', async () => {
    const bKeyId = b.admin.key_id;
    await refusedAlike((k) => gateway().delete(`/v1/api-keys/${k}`).set(A()), bKeyId, 'abcdefghijklmnop');
    await refusedAlike((p) => gateway().put(`/v1/warehouses/${a.w.warehouse_id}/grants/${p}`).set(A()).send({ level: 'read' }), b.admin.principal_id, `p_${uniq()}${uniq()}`);
  });
});

describe('catalog: A\'s catalog token with B\'s warehouse, tables and locations', () => {
  const T = () => bearer(a.catalogToken);
  const tables = (prefix: string) => `/v1/${prefix}/namespaces/ev/tables`;

  test.each([
    ['GET /v1/config?warehouse', (w: string) => catalog().get('/v1/config').query({ warehouse: w }).set(T())],
    ['GET namespaces', (w: string) => catalog().get(`/v1/${w}/namespaces`).set(T())],
    ['POST namespaces', (w: string) => catalog().post(`/v1/${w}/namespaces`).set(T()).send({ namespace: ['x'] })],
    ['GET tables', (w: string) => catalog().get(tables(w)).set(T())],
    ['load table', (w: string) => catalog().get(`${tables(w)}/t`).set(T())],
    ['commit', (w: string) => catalog().post(`${tables(w)}/t`).set(T()).send({ updates: [{ action: 'set-properties', updates: { a: '1' } }] })],
    ['drop with purge', (w: string) => catalog().delete(`${tables(w)}/t`).query({ purgeRequested: 'true' }).set(T())],
    ['credentials', (w: string) => catalog().get(`${tables(w)}/t/credentials`).set(T())],
    ['transactions', (w: string) => catalog().post(`/v1/${w}/transactions/commit`).set(T()).send({ 'table-changes': [{ identifier: { namespace: ['ev'], name: 't' }, updates: [] }] })],
    ['register', (w: string) => catalog().post(`/v1/${w}/namespaces/ev/register`).set(T()).send({ name: 'r', 'metadata-location': b.metadataLocation })],
  ])('%s with B\'s warehouse id and name', async (_name, send) => {
    await refusedAlike(send, b.w.warehouse_id, ghostId());
    await refusedAlike(send, b.w.name, `lake_${uniq()}`);
  });

  test('locations in B\'s bucket, in A\'s own catalog: refused alike to a bucket that does not exist', async () => {
    const ghostBucket = `ghost--${uniq()}${uniq()}`;
    const mine = (path: string) => `/v1/${a.w.warehouse_id}${path}`;
    const sends: Array<(bucket: string) => Promise<request.Response>> = [
      (bk) => catalog().post(mine('/namespaces/ev/tables')).set(T()).send({ name: `c${uniq()}`, schema: sinkTestSchema, location: `s3://${bk}/ev/stolen` }),
      (bk) => catalog().post(mine('/namespaces/ev/tables')).set(T()).send({ name: `c${uniq()}`, schema: sinkTestSchema, 'stage-create': true, location: `s3://${bk}/ev` }),
      (bk) => catalog().post(mine('/namespaces/ev/tables/t')).set(T()).send({ updates: [{ action: 'set-location', location: `s3://${bk}/${b.tableLocation.split('/').slice(3).join('/')}` }] }),
      (bk) => catalog().post(mine('/namespaces/ev/tables/t')).set(T()).send({ updates: [{ action: 'set-properties', updates: { 'write.data.path': `s3://${bk}/ev` } }] }),
      (bk) => catalog().post(mine('/transactions/commit')).set(T()).send({ 'table-changes': [{ identifier: { namespace: ['ev'], name: 't' }, updates: [{ action: 'set-location', location: `s3://${bk}/x` }] }] }),
      (bk) => catalog().post(mine('/namespaces/ev/register')).set(T()).send({ name: `r${uniq()}`, 'metadata-location': `s3://${bk}/${b.metadataLocation.split('/').slice(3).join('/')}` }),
    ];
    for (const send of sends) await refusedAlike(send, b.w.bucket, ghostBucket);
    for (const send of sends) await refusedAlike(send, b.w.blob_bucket, ghostBucket);
  });

  test('B\'s catalog client id with a guessed secret is refused as a client that does not exist', async () => {
    await refusedAlike((id) => catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id: id, client_secret: 'guess' }),
      b.catalogCredential.client_id, `t-${randomUUID()}`);
  });
});

describe('afterwards', () => {
  test('every object of B\'s is where it was, and B\'s catalog, table, sink and credential work as before', async () => {
    expect([...await objectsOf(b.w.bucket), ...await objectsOf(b.w.blob_bucket)]).toEqual(bObjectsBefore);
    const token = await catalogToken(b.catalogCredential);
    const loaded = await catalog().get(`/v1/${b.w.warehouse_id}/namespaces/ev/tables/t`).set(bearer(token));
    expect(loaded.status).toBe(200);
    expect(loaded.body['metadata-location']).toBe(b.metadataLocation);
    expect(loaded.body.metadata.properties).not.toHaveProperty('a');
    const w = await gateway().get(`/v1/warehouses/${b.w.warehouse_id}`).set(bearer(b.admin.api_key));
    expect(w.status).toBe(200);
    expect(w.body).toMatchObject({ default_format_version: 2, public: false });
    const sink = await gateway().get(`/v1/sinks/${b.sink.sink_id}`).set(bearer(b.admin.api_key));
    expect(sink.body.state).toBe('active');
    expect((await gateway().get(`/v1/warehouses/${b.w.warehouse_id}/grants`).set(bearer(b.admin.api_key))).body)
      .not.toContainEqual(expect.objectContaining({ principal_id: a.admin.principal_id }));
  });
});
