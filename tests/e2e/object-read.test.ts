import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DuckDBInstance } from '@duckdb/node-api';
import { adminStorage } from '../support/store';
import { bearer, catalogWithCallers, expectError, gateway, newMember, newOrgWithAdmin, newWarehouse, uniq, type CatalogCallers } from './control-plane-helpers';
import { sql, stack } from './helpers';

// Spec: GET /v1/object (issue 35's object read; Floe's shape, docs/api.md):
// one object of a catalog's table or blob bucket, read as its read-only
// identity — a small JSON or text file whole, a Parquet file's first rows
// (from the query worker), anything else a presigned URL fetched here with
// plain fetch — and every refusal of the error index a test can bring about
// on a healthy store (store_error and store_timeout: the unit test beside
// services/control-plane/src/domain/blobs/object-read.ts).

let c: CatalogCallers;
const dir = mkdtempSync(join(tmpdir(), 'floe-object-'));

const read = (q: Record<string, string>, as = c.reader.api_key) => gateway().get('/v1/object').query({ warehouse: c.w.name, ...q }).set(bearer(as));
const upload = (key: string, body: string | Buffer, type: string) =>
  gateway().post(`/v1/warehouses/${c.w.warehouse_id}/blobs/upload`).query({ key }).set(bearer(c.admin.api_key)).set('Content-Type', type).send(body);

/** A Parquet file of `n` rows (id INTEGER, name VARCHAR), written by DuckDB. */
async function parquetOf(n: number): Promise<Buffer> {
  const path = join(dir, `rows-${n}.parquet`);
  const duck = await (await DuckDBInstance.create(':memory:')).connect();
  await duck.run(`COPY (SELECT i::INTEGER AS id, 'name ' || i AS name FROM range(1, ${n + 1}) t(i)) TO '${path}' (FORMAT parquet)`);
  duck.closeSync();
  return readFileSync(path);
}

const rowsUpTo = (n: number) => Array.from({ length: n }, (_, i) => ({ id: i + 1, name: `name ${i + 1}` }));

beforeAll(async () => {
  c = await catalogWithCallers('ob');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('a small JSON file whole, its 64-bit integers exact; one that does not parse as text; no-store', async () => {
  const body = '{"snapshot-id": 6299339123456789012, "name": "lake", "nested": {"list": [1, 2.5, null, true]}}';
  expect((await upload('cfg/settings.json', body, 'application/json')).status).toBe(201);
  const res = await read({ key: 'cfg/settings.json' });
  expect(res.status).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  expect(res.body).toEqual({
    warehouse: c.w.name, warehouse_id: c.w.warehouse_id, bucket: c.w.blob_bucket, bucket_kind: 'blobs', key: 'cfg/settings.json',
    size: Buffer.byteLength(body), content_type: 'application/json', etag: expect.stringMatching(/^[0-9a-f]{32}$/), last_modified: expect.any(String),
    kind: 'json', json: { 'snapshot-id': expect.any(Number), name: 'lake', nested: { list: [1, 2.5, null, true] } },
  });
  // JSON.parse above rounds the id; the answer's text carries every digit.
  expect(res.text).toContain('"snapshot-id":6299339123456789012');

  expect((await upload('cfg/broken.json', '{"a": ', 'application/json')).status).toBe(201);
  expect((await read({ key: 'cfg/broken.json' })).body).toMatchObject({ kind: 'text', text: '{"a": ' });
});

test('text files whole by type or extension; a binary or a file over 1 MiB as a presigned URL that fetch downloads', async () => {
  expect((await upload('notes/readme.md', '# Hello\nwörld\n', 'application/octet-stream')).status).toBe(201);
  expect((await read({ key: 'notes/readme.md' })).body).toMatchObject({ kind: 'text', text: '# Hello\nwörld\n', content_type: 'application/octet-stream' });
  expect((await upload('exports/plain', 'id,n\n1,2\n', 'text/csv')).status).toBe(201);
  expect((await read({ key: 'exports/plain' })).body).toMatchObject({ kind: 'text', text: 'id,n\n1,2\n', size: 9 });

  const bytes = randomBytes(4096);
  expect((await upload('bin/blob.bin', bytes, 'application/octet-stream')).status).toBe(201);
  const bin = await read({ key: 'bin/blob.bin' });
  expect(bin.body).toMatchObject({ kind: 'url', size: 4096, expires_in: 900 });
  expect(Date.parse(bin.body.expires_at) - Date.now()).toBeGreaterThan(890_000);
  const url = new URL(bin.body.url);
  expect(url.origin).toBe(new URL(stack().s3_url).origin);
  const [ro] = await sql<{ k: string }>('SELECT storage_ro_access_key AS k FROM warehouses WHERE id = $1', [c.w.warehouse_id]);
  expect(url.searchParams.get('X-Amz-Credential')!.split('/')[0]).toBe(ro.k);
  const got = await fetch(bin.body.url);
  expect(got.status).toBe(200);
  expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);

  // Text, but over 1 MiB (put straight into the store: the API's uploads stop at 1 MB).
  const big = 'a,b\n'.repeat(300_000);
  await adminStorage().s3.send(new PutObjectCommand({ Bucket: c.w.blob_bucket, Key: 'exports/big.csv', Body: big, ContentType: 'text/csv' }));
  const large = await read({ key: 'exports/big.csv' });
  expect(large.body).toMatchObject({ kind: 'url', size: 1_200_000 });
  expect(await (await fetch(large.body.url)).text()).toBe(big);
});

test('a table bucket object: the metadata file by its s3:// URI, and by a bare key with bucket=tables', async () => {
  const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }] };
  const made = await gateway().post('/v1/tables').set(bearer(c.admin.api_key)).send({ warehouse: c.w.name, namespace: 'obj', name: 'events', schema });
  expect(made.status).toBe(201);
  const table = await gateway().get('/v1/table').query({ warehouse: c.w.name, namespace: 'obj', name: 'events' }).set(bearer(c.reader.api_key));
  const uri: string = table.body.metadata_location;
  expect(uri.startsWith(`s3://${c.w.bucket}/`)).toBe(true);

  const byUri = await read({ key: uri });
  expect(byUri.status).toBe(200);
  expect(byUri.body).toMatchObject({ bucket: c.w.bucket, bucket_kind: 'tables', key: uri.slice(`s3://${c.w.bucket}/`.length), kind: 'json' });
  expect(byUri.body.json).toMatchObject({ 'format-version': 2, 'table-uuid': made.body.table_uuid, location: made.body.location });
  const byKey = await gateway().get('/v1/object').query({ warehouse_id: c.w.warehouse_id, key: byUri.body.key, bucket: 'tables' }).set(bearer(c.reader.api_key));
  expect(byKey.text).toBe(byUri.text);
  // The same key in the blob bucket (the default) is not there.
  expectError(await read({ key: byUri.body.key }), 404, 'not_found');
});

test('a Parquet file\'s first rows, read by the query worker: by extension, and by its magic under any name', async () => {
  expect((await upload('data/people.parquet', await parquetOf(3), 'application/octet-stream')).status).toBe(201);
  const small = await read({ key: 'data/people.parquet' });
  expect(small.status).toBe(200);
  expect(small.body).toMatchObject({
    kind: 'parquet', bucket_kind: 'blobs', columns: [{ name: 'id', type: 'INTEGER' }, { name: 'name', type: 'VARCHAR' }],
    rows: rowsUpTo(3), row_count: 3, truncated: false,
  });

  expect((await upload('data/many', await parquetOf(25), 'application/octet-stream')).status).toBe(201);
  const many = await read({ key: `s3://${c.w.blob_bucket}/data/many` });
  expect(many.body).toMatchObject({ kind: 'parquet', rows: rowsUpTo(20), row_count: 20, truncated: true });

  // A .parquet key without Parquet's bytes is no Parquet file: a URL.
  expect((await upload('data/fake.parquet', 'not parquet at all', 'application/octet-stream')).status).toBe(201);
  expect((await read({ key: 'data/fake.parquet' })).body).toMatchObject({ kind: 'url' });
}, 60_000);

test('every refusal of the query: missing_field, invalid_key, invalid_value, not_found; repeated parameters are 400', async () => {
  expect(expectError(await read({}), 400, 'missing_field').field).toBe('key');
  expect(expectError(await gateway().get('/v1/object').query({ key: 'a.txt' }).set(bearer(c.reader.api_key)), 400, 'missing_field').field).toBe('warehouse_id');
  const other = await newWarehouse(c.admin.api_key, c.w.project_id, `ob2_${uniq()}`);
  for (const key of ['', '/abs.txt', 'a/../b', 'a\u0001b', 'a\u0000b', 'k'.repeat(1025), 's3://only-bucket', `s3://${c.w.bucket}/`, `s3://${other.bucket}/x.json`, `s3://${other.blob_bucket}/x.json`]) {
    const res = await read({ key });
    expect([key.slice(0, 30), res.status, res.body.error?.code, res.body.error?.field]).toEqual([key.slice(0, 30), 400, 'invalid_key', 'key']);
  }
  expect(expectError(await read({ key: `s3://${other.bucket}/x.json` }), 400, 'invalid_key').buckets).toEqual([c.w.bucket, c.w.blob_bucket]);
  expect(expectError(await read({ key: 'a.txt', bucket: 'both' }), 400, 'invalid_value').field).toBe('bucket');
  expect(expectError(await read({ key: `s3://${c.w.bucket}/x.json`, bucket: 'blobs' }), 400, 'invalid_value').field).toBe('bucket');
  expectError(await read({ key: 'no/such/object.json' }), 404, 'not_found');
  for (const query of [`warehouse=${c.w.name}&key=a.txt&key=b.txt`, `warehouse=${c.w.name}&warehouse=x&key=a.txt`, `warehouse=${c.w.name}&key[x]=a`]) {
    const res = await gateway().get(`/v1/object?${query}`).set(bearer(c.reader.api_key));
    expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'invalid_value']);
  }
});

test('who may read: a read holder; not a member whose read was revoked, an ungranted token, another tenant, or a storage or catalog credential', async () => {
  expect((await upload('who/ok.txt', 'hello', 'text/plain')).status).toBe(201);
  expect((await read({ key: 'who/ok.txt' }, c.admin.api_key)).body).toMatchObject({ kind: 'text', text: 'hello' });

  const revoked = await newMember(await orgOf());
  expect((await gateway().delete(`/v1/warehouses/${c.w.warehouse_id}/grants/${revoked.principal_id}`).set(bearer(c.admin.api_key))).status).toBe(200);
  const refused = expectError(await read({ key: 'who/ok.txt' }, revoked.api_key), 403, 'forbidden');
  expect(refused).toMatchObject({ level: 'none', needed: 'read' });
  expect(refused.can_grant).toEqual([expect.objectContaining({ principal_id: c.admin.principal_id })]);

  for (const who of [c.ungranted, c.stranger]) expectError(await read({ key: 'who/ok.txt' }, who.api_key), 404, 'warehouse_not_found');
  // The stranger's own catalog: a bucket of this one named in its key is not theirs to read.
  const theirs = await newOrgWithAdmin();
  const project = await gateway().post('/v1/projects').set(bearer(theirs.admin.api_key)).send({ name: `p-${uniq()}` });
  const theirW = await newWarehouse(theirs.admin.api_key, project.body.project_id, `ob3_${uniq()}`);
  const cross = await gateway().get('/v1/object').query({ warehouse: theirW.warehouse_id, key: `s3://${c.w.blob_bucket}/who/ok.txt` }).set(bearer(theirs.admin.api_key));
  expectError(cross, 400, 'invalid_key');

  const uploader = await gateway().post(`/v1/warehouses/${c.w.warehouse_id}/uploaders`).set(bearer(c.admin.api_key)).send({ name: 'obj-cam', prefix: 'cam/' });
  expect(uploader.status).toBe(201);
  const connection = await gateway().get('/v1/connection').query({ warehouse: c.w.warehouse_id }).set(bearer(c.admin.api_key));
  for (const credential of [uploader.body.secret_access_key, uploader.body.access_key_id, connection.body.catalog_credential.client_secret]) {
    expectError(await read({ key: 'who/ok.txt' }, credential), 401, 'unauthorized');
  }
  expectError(await gateway().get('/v1/object').query({ warehouse: c.w.name, key: 'who/ok.txt' }), 401, 'unauthorized');
});

/** The organisation of the test's catalog (catalogWithCallers made it for its admin). */
async function orgOf() {
  const [row] = await sql<{ org_id: string; handle: string; name: string }>('SELECT o.id AS org_id, o.handle, o.name FROM warehouses w JOIN organizations o ON o.id = w.org_id WHERE w.id = $1', [c.w.warehouse_id]);
  return row;
}
