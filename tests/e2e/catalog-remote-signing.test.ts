import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { appendRows, type TableObjects, type TableRef } from './append-helpers';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, expectError, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { stack } from './helpers';

const region = () => process.env.FLOE_S3_REGION!;

// Issue 36: remote signing (the REST document's signRequest) and Floe's
// `storage_access: signing_only` switch. The signing client here is written
// from the document: it asks POST …/tables/{t}/sign for each request it is
// about to make and sends it with the headers the answer gives, holding no
// storage credential of its own. It writes a table's data file, manifests and
// manifest list, commits, and reads the rows back (DuckDB over the bytes its
// signed GET fetched); RGW accepting each request is what proves the
// signature. Then every refusal: another table's object, another bucket,
// another store, bucket-wide operations, writes with the read-only credential.

type Org = Awaited<ReturnType<typeof newOrgWithAdmin>>;
let o: Org;
let w: Awaited<ReturnType<typeof newWarehouse>>;
let rw: string;
let ro: string;
let dir: string;
const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'msg', required: false, type: 'string' }] };
const tables = () => `/v1/${w.warehouse_id}/namespaces/signed/tables`;
const ref = (table: string, t = rw): TableRef => ({ warehouseId: w.warehouse_id, bucket: w.bucket, token: t, namespace: 'signed', table });

/** Asks the catalog to sign one request; the answer as it came. */
const askToSign = (table: string, t: string, r: { method: string; uri: string; headers?: Record<string, string[]>; region?: string }) =>
  catalog().post(`${tables()}/${table}/sign`).set(bearer(t))
    .send({ region: r.region ?? region(), uri: r.uri, method: r.method, headers: r.headers ?? { 'x-amz-content-sha256': ['UNSIGNED-PAYLOAD'] }, provider: 's3' });

/** A signing answer's headers as fetch sends them (fetch sets Host itself). */
const sendable = (headers: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(headers).filter(([k]) => k !== 'host').map(([k, v]) => [k, v.join(', ')]));

/** The signing client: every request signed by the catalog for `table`, then sent to the store as signed. */
function signedObjects(table: string, t: string): TableObjects & { send(method: string, uri: string, body?: Uint8Array): Promise<Response> } {
  const send = async (method: string, uri: string, body?: Uint8Array) => {
    const signed = await askToSign(table, t, { method, uri, headers: { 'x-amz-content-sha256': ['UNSIGNED-PAYLOAD'], ...(body ? { 'content-length': [String(body.length)] } : {}) } });
    if (signed.status !== 200) throw Object.assign(new Error(`sign ${method} ${uri}: ${signed.status} ${JSON.stringify(signed.body)}`), { status: signed.status, body: signed.body });
    expect(signed.headers['cache-control']).toBe('no-cache');
    return fetch(signed.body.uri, { method, headers: sendable(signed.body.headers), body: body ? Buffer.from(body) : undefined });
  };
  const uriOf = (path: string) => `${stack().s3_url}/${path.slice('s3://'.length).split('/').map(encodeURIComponent).join('/')}`;
  return {
    send,
    async read(path) {
      const res = await send('GET', uriOf(path));
      if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
      return new Uint8Array(await res.arrayBuffer());
    },
    async put(path, bytes) {
      const res = await send('PUT', uriOf(path), bytes);
      if (res.status !== 200) throw new Error(`PUT ${path}: ${res.status} ${await res.text()}`);
    },
  };
}

beforeAll(async () => {
  o = await newOrgWithAdmin();
  w = await newWarehouse(o.admin.api_key, (await newProject(o.admin.api_key)).project_id, `signed_${uniq()}`);
  const connection = async (level: 'read' | 'write') => (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level }).set(bearer(o.admin.api_key)).expect(200)).body.catalog_credential;
  const write = await connection('write');
  const read = await connection('read');
  rw = await token(write.client_id, write.client_secret);
  ro = await token(read.client_id, read.client_secret);
  await catalog().post(`/v1/${w.warehouse_id}/namespaces`).set(bearer(rw)).send({ namespace: ['signed'] }).expect(200);
  for (const name of ['events', 'other']) {
    await catalog().post(tables()).set(bearer(rw)).send({ name, schema, properties: { 'write.target-file-size-bytes': '1' } }).expect(200);
  }
  dir = mkdtempSync(join(tmpdir(), 'floe-signing-'));
}, 60_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a client holding no storage credential writes and reads a table through signed requests', async () => {
  const loaded = await catalog().get(`${tables()}/events`).set(bearer(rw)).set('X-Iceberg-Access-Delegation', 'remote-signing');
  expect(loaded.status).toBe(200);
  expect(loaded.body.config).toEqual({
    's3.remote-signing-enabled': 'true', 's3.endpoint': stack().s3_url, 's3.path-style-access': 'true', 's3.region': region(), 'client.region': region(),
  });
  expect(loaded.body).not.toHaveProperty('storage-credentials');

  const writer = signedObjects('events', rw);
  const appended = await appendRows(ref('events'), [{ id: 1n, msg: 'one' }, { id: 2n, msg: 'two' }], 1, { objects: writer });
  const head = await catalog().get(`${tables()}/events`).set(bearer(ro));
  expect(BigInt(head.body.metadata['current-snapshot-id'])).toBe(appended.snapshotId);

  // Read back with the read-only credential's signatures: the data file, and its rows.
  const bytes = await signedObjects('events', ro).read(appended.dataPath);
  const local = join(dir, 'data.parquet');
  writeFileSync(local, bytes);
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  try {
    const rows = (await duck.runAndReadAll(`SELECT id, msg FROM read_parquet('${local}') ORDER BY id`)).getRowObjects();
    expect(rows.map((r) => [Number(r.id), r.msg])).toEqual([[1, 'one'], [2, 'two']]);
  } finally {
    duck.closeSync();
  }
  // A listing of the table's own prefix is signed too.
  const location: string = head.body.metadata.location;
  const prefix = `${location.slice(`s3://${w.bucket}/`.length)}/data/`;
  const listed = await signedObjects('events', ro).send('GET', `${stack().s3_url}/${w.bucket}?list-type=2&prefix=${encodeURIComponent(prefix)}`);
  expect(listed.status).toBe(200);
  expect(await listed.text()).toContain(appended.dataPath.slice(`s3://${w.bucket}/`.length));
  // A signature is for its one request: the same headers on another object are refused by the store.
  const signed = await askToSign('events', ro, { method: 'GET', uri: `${stack().s3_url}/${w.bucket}/${appended.dataPath.slice(`s3://${w.bucket}/`.length)}` });
  expect((await fetch(`${stack().s3_url}/${w.bucket}/${prefix}other.parquet`, { headers: sendable(signed.body.headers) })).status).toBe(403);
}, 60_000);

test('refusals: another table, another bucket, another store, bucket-wide operations, writes with the read-only credential', async () => {
  const events = (await catalog().get(`${tables()}/events`).set(bearer(rw))).body.metadata.location as string;
  const other = (await catalog().get(`${tables()}/other`).set(bearer(rw))).body.metadata.location as string;
  const uri = (location: string, rest: string) => `${stack().s3_url}/${location.slice('s3://'.length)}/${rest}`;
  const forbidden = async (t: string, r: Parameters<typeof askToSign>[2]) => icebergError(await askToSign('events', t, r), 403, 'ForbiddenException');
  await forbidden(rw, { method: 'GET', uri: uri(other, 'data/x.parquet') });
  await forbidden(rw, { method: 'PUT', uri: `${stack().s3_url}/${w.blob_bucket}/x` });
  await forbidden(rw, { method: 'GET', uri: `http://127.0.0.99:1/${events.slice('s3://'.length)}/data/x.parquet` });
  await forbidden(rw, { method: 'GET', uri: `${stack().s3_url}/${w.bucket}?policy` });
  await forbidden(rw, { method: 'DELETE', uri: `${stack().s3_url}/${w.bucket}` });
  await forbidden(rw, { method: 'POST', uri: `${stack().s3_url}/${w.bucket}?delete` });
  await forbidden(rw, { method: 'GET', uri: `${stack().s3_url}/${w.bucket}?list-type=2&prefix=` });
  await forbidden(rw, { method: 'PUT', uri: `${uri(events, 'data/x.parquet')}?acl` });
  await forbidden(rw, { method: 'GET', uri: uri(events, '../other/x') });
  await forbidden(ro, { method: 'PUT', uri: uri(events, 'data/x.parquet') });
  await forbidden(ro, { method: 'DELETE', uri: uri(events, 'data/x.parquet') });
  icebergError(await askToSign('events', rw, { method: 'GET', uri: uri(events, 'x'), region: 'mars-1' }), 400, 'BadRequestException');
  icebergError(await askToSign('events', rw, { method: 'FETCH', uri: uri(events, 'x') }), 400, 'BadRequestException');
  icebergError(await askToSign('events', rw, { method: 'GET', uri: 'not a uri' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`${tables()}/events/sign`).set(bearer(rw)).send({ region: region(), uri: uri(events, 'x'), method: 'GET' }), 400, 'BadRequestException');
  icebergError(await catalog().post(`${tables()}/events/sign`).set(bearer(rw)).send({ region: region(), uri: uri(events, 'x'), method: 'GET', headers: {}, provider: 'gcs' }), 400, 'BadRequestException');
  // The document declares no 404 for signing: a table that does not exist, and another catalog, are 403.
  icebergError(await askToSign('ghost', rw, { method: 'GET', uri: uri(events, 'x') }), 403, 'ForbiddenException');
  icebergError(await catalog().post(`${tables()}/events/sign`).send({}), 401, 'NotAuthorizedException');
  // Another organisation's catalog credential reaches no table of this one.
  const stranger = await newOrgWithAdmin();
  const theirs = await newWarehouse(stranger.admin.api_key, (await newProject(stranger.admin.api_key)).project_id, `theirs_${uniq()}`);
  const credential = (await gateway().get('/v1/connection').query({ warehouse: theirs.warehouse_id, level: 'write' }).set(bearer(stranger.admin.api_key)).expect(200)).body.catalog_credential;
  icebergError(await askToSign('events', await token(credential.client_id, credential.client_secret), { method: 'GET', uri: uri(events, 'x') }), 403, 'ForbiddenException');
}, 60_000);

test('storage_access signing_only: no credentials are vended anywhere, requests are signed instead; switched back, they are vended again', async () => {
  const patch = (key: string, body: unknown) => gateway().patch(`/v1/warehouses/${w.warehouse_id}`).set(bearer(key)).send(body as never);
  const on = await patch(o.admin.api_key, { storage_access: 'signing_only' });
  expect(on.status).toBe(200);
  expect(on.body).toMatchObject({ storage_access: 'signing_only', updated: ['storage_access'], previous: { storage_access: 'vended', default_format_version: 2 } });
  expect((await patch(o.admin.api_key, { storage_access: 'signing_only' })).body.updated).toEqual([]);

  const asked = await catalog().get(`${tables()}/events`).set(bearer(rw)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
  expect(asked.status).toBe(200);
  expect(asked.body).not.toHaveProperty('storage-credentials');
  expect(asked.body.config).toMatchObject({ 's3.remote-signing-enabled': 'true' });
  expect(asked.body.config).not.toHaveProperty('s3.access-key-id');
  icebergError(await catalog().get(`${tables()}/events/credentials`).set(bearer(rw)), 403, 'ForbiddenException');
  expect((await catalog().get('/v1/config').set(bearer(rw))).body.overrides).toMatchObject({ 's3.remote-signing-enabled': 'true' });
  const plan = await catalog().post(`${tables()}/events/plan`).set(bearer(ro)).set('X-Iceberg-Access-Delegation', 'vended-credentials').send({});
  expect(plan.body.status).toBe('completed');
  expect(plan.body).not.toHaveProperty('storage-credentials');
  // Signing still works.
  await appendRows(ref('events'), [{ id: 3n, msg: 'three' }], 1, { objects: signedObjects('events', rw) });

  // Only write level changes it; a bad value names what is accepted; another organisation does not find it.
  const member = await newMember(o.org, 'human', 'member');
  expectError(await patch(member.api_key, { storage_access: 'vended' }), 403, 'forbidden');
  expect(expectError(await patch(o.admin.api_key, { storage_access: 'sometimes' }), 400, 'invalid_value')).toMatchObject({ accepts: ['vended', 'signing_only'] });
  const stranger = await newOrgWithAdmin();
  expectError(await patch(stranger.admin.api_key, { storage_access: 'vended' }), 404, 'warehouse_not_found');

  const off = await patch(o.admin.api_key, { storage_access: 'vended', default_format_version: 2 });
  expect(off.body).toMatchObject({ storage_access: 'vended', updated: ['storage_access'] });
  expect((await catalog().get('/v1/config').set(bearer(rw))).body.overrides).not.toHaveProperty('s3.remote-signing-enabled');
  const vended = await catalog().get(`${tables()}/events`).set(bearer(rw)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
  expect(vended.body['storage-credentials']).toHaveLength(1);
  const audit = await gateway().get('/v1/audit').query({ org_id: o.org.org_id, action: 'warehouse.update' }).set(bearer(o.admin.api_key)).expect(200);
  expect(audit.body.events.map((e: any) => e.data.changes.storage_access)).toEqual(expect.arrayContaining(['signing_only', 'vended']));
}, 60_000);

test('20 switches at once leave one setting and audit only what changed', async () => {
  const switchedOn = async () => (await gateway().get('/v1/audit').query({ org_id: o.org.org_id, action: 'warehouse.update' }).set(bearer(o.admin.api_key)).expect(200))
    .body.events.filter((e: any) => e.data.changes.storage_access === 'signing_only').length;
  const before = await switchedOn();
  const answers = await Promise.all(Array.from({ length: 20 }, () => gateway().patch(`/v1/warehouses/${w.warehouse_id}`).set(bearer(o.admin.api_key)).send({ storage_access: 'signing_only' })));
  expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
  expect(answers.every((a) => a.body.storage_access === 'signing_only')).toBe(true);
  const listed = await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(o.admin.api_key)).expect(200);
  expect(listed.body.storage_access).toBe('signing_only');
  expect(answers.filter((a) => a.body.updated.length === 1)).toHaveLength(1);
  expect(await switchedOn()).toBe(before + 1);
  await gateway().patch(`/v1/warehouses/${w.warehouse_id}`).set(bearer(o.admin.api_key)).send({ storage_access: 'vended' }).expect(200);
}, 60_000);
