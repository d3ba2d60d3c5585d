import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { readPublicWithIcebird } from '../support/icebird';
import { appendRows, icebergClient } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, expectError, gateway, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { sql, stack } from './helpers';

// Spec: GET /v1/public/{handle}/{catalog}/connection (no credential), the
// internal GET /internal/tls-ask, and the public tier: a public catalog's
// table bytes are not counted against the private storage limit.
//
// The answer's recipes are not run here. DuckDB's recipe needs its httpfs
// and iceberg extensions, which DuckDB downloads from its own host on INSTALL;
// this project's machines reach only the npm registry and Debian, and no
// package of either ships them (@duckdb/node-api links in parquet, json and
// icu, not those). PyIceberg is packaged in neither. What the recipes rely on is run
// instead: the metadata file and every data file read with no credential at
// all (icebird, below).

const schema = { type: 'struct', 'schema-id': 0, fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'city', required: false, type: 'string' }] };
const publicPath = (handle: string, catalog: string) => `/v1/public/${handle}/${catalog}/connection`;

async function publish(apiKey: string, w: { warehouse_id: string; name: string }): Promise<void> {
  const res = await gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(apiKey)).send({ confirm: w.name });
  if (res.status !== 200) throw new Error(`publishing failed: ${res.status} ${JSON.stringify(res.body)}`);
}

test('a public catalog: its connection, without a credential, lists its tables and an anonymous reader reads them', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const name = `open_${uniq()}`;
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id, name);
  const cred = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key))).body.catalog_credential;
  const tok = await token(cred.client_id, cred.client_secret);
  const c = icebergClient(w.warehouse_id, tok);
  await c.createNamespace({ namespace: ['lake'] });
  await c.createTable({ namespace: ['lake'] }, { name: 'cities', schema: schema as never });
  await appendRows({ warehouseId: w.warehouse_id, bucket: w.bucket, token: tok, namespace: 'lake', table: 'cities' }, [{ id: 1n, city: 'Lagos' }, { id: 2n, city: 'Lima' }]);

  // Private, unknown: the same 404.
  expectError(await gateway().get(publicPath(org.handle, name)), 404, 'public_catalog_not_found');
  expectError(await gateway().get(publicPath(org.handle, 'no_such')), 404, 'public_catalog_not_found');
  expectError(await gateway().get(publicPath('no-such-handle', name)), 404, 'public_catalog_not_found');

  await publish(admin.api_key, w);
  const res = await gateway().get(publicPath(org.handle, name));
  expect(res.status).toBe(200);
  const loaded = await c.loadTable({ namespace: ['lake'], name: 'cities' });
  expect(res.body).toMatchObject({
    handle: org.handle, catalog: name, warehouse_id: w.warehouse_id, public: true, bucket: w.bucket, public_url: `${stack().s3_url}/${w.bucket}/`,
    s3: { endpoint: stack().s3_url, path_style: true, anonymous: true }, count: 1,
  });
  const [t] = res.body.tables;
  expect(t).toMatchObject({ table: 'lake.cities', namespace: ['lake'], name: 'cities' });
  expect(t.metadata_location).toMatch(new RegExp(`^s3://${w.bucket}/.+\\.metadata\\.json$`));
  expect(res.body.recipe.duckdb).toContain(`iceberg_scan('${t.metadata_location}')`);
  expect(res.body.recipe.pyiceberg).toContain(`StaticTable.from_metadata("${t.metadata_location}"`);
  expect(JSON.stringify(res.body)).not.toContain(cred.client_secret);

  // An anonymous reader: the metadata file, then the table's rows, with no credential at all.
  const meta = await fetch(t.metadata_url);
  expect(meta.status).toBe(200);
  const metadata = await meta.json();
  expect(metadata['current-snapshot-id']).toBe(loaded['current-snapshot-id']);
  const rows = await readPublicWithIcebird(stack().s3_url, metadata);
  expect(rows.map((r: { id: bigint; city: string }) => [Number(r.id), r.city]).sort()).toEqual([[1, 'Lagos'], [2, 'Lima']]);
  expect((await fetch(t.metadata_url.replace(/[^/]+$/, 'intruder.json'), { method: 'PUT', body: '{}' })).status).toBe(403);

  // The bucket spelling of the catalog name reaches it too; unpublished, it is gone again.
  expect((await gateway().get(publicPath(org.handle, name.replace(/_/g, '-')))).body.warehouse_id).toBe(w.warehouse_id);
  await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).expect(200);
  expectError(await gateway().get(publicPath(org.handle, name)), 404, 'public_catalog_not_found');
}, 90_000);

test('public_catalog_ambiguous: two public catalogs of one name in an organisation (older catalogs in different projects)', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const name = `twin_${uniq()}`;
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id, name);
  await publish(admin.api_key, w);
  const other = await newProject(admin.api_key);
  // A catalog from before 2026-09-20 (w-<uuid> buckets) of the same name in another project, as older data holds them.
  const twin = randomUUID();
  await sql(`INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, status, storage_uid, storage_access_key, storage_secret_key,
               storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, public_since)
             SELECT $2, name, $3, org_id, 'w-' || $2, 'b-' || $2, status, storage_uid, storage_access_key, storage_secret_key,
               storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, now() FROM warehouses WHERE id = $1`, [w.warehouse_id, twin, other.project_id]);
  try {
    const err = expectError(await gateway().get(publicPath(org.handle, name)), 409, 'public_catalog_ambiguous');
    expect((err.candidates as Array<{ warehouse_id: string }>).map((x) => x.warehouse_id).sort()).toEqual([w.warehouse_id, twin].sort());
    // The bucket spelling names one of them.
    expect((await gateway().get(publicPath(org.handle, name.replace(/_/g, '-')))).body.warehouse_id).toBe(w.warehouse_id);
    await sql(`UPDATE warehouses SET public_since = NULL WHERE id = $1`, [twin]);
    expect((await gateway().get(publicPath(org.handle, name))).body.warehouse_id).toBe(w.warehouse_id);
  } finally {
    await sql(`DELETE FROM warehouses WHERE id = $1`, [twin]);
  }
});

test('GET /internal/tls-ask: 200 only for a bucket of a live catalog under the store host', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = (await newProject(admin.api_key)).project_id;
  const w = await newWarehouse(admin.api_key, project);
  const host = new URL(stack().s3_url).hostname;
  const cp = () => request(stack().services['control-plane'].url);
  const ask = (domain?: string) => cp().get('/internal/tls-ask').query(domain === undefined ? {} : { domain }).set(bearer(stack().bootstrap_secret));

  expectError(await cp().get('/internal/tls-ask').query({ domain: `${w.bucket}.${host}` }), 401, 'unauthorized');
  expectError(await cp().get('/internal/tls-ask').query({ domain: `${w.bucket}.${host}` }).set(bearer(admin.api_key)), 401, 'unauthorized');
  expect((await gateway().get('/internal/tls-ask').query({ domain: `${w.bucket}.${host}` })).status).toBe(404);
  expectError(await ask(), 400, 'missing_field');

  const tables = await ask(`${w.bucket}.${host}`);
  expect([tables.status, tables.body]).toEqual([200, { domain: `${w.bucket}.${host}`, bucket: w.bucket, warehouse_id: w.warehouse_id, kind: 'tables', issue: true }]);
  expect((await ask(`${w.blob_bucket}.${host.toUpperCase()}.`)).body).toEqual({ domain: `${w.blob_bucket}.${host}`, bucket: w.blob_bucket, warehouse_id: w.warehouse_id, kind: 'blobs', issue: true });
  for (const domain of [`${w.bucket}.evil.example`, w.bucket, `nosuch--bucket.${host}`, `x.${w.bucket}.${host}`, host, `.${host}`]) {
    expect([domain, expectError(await ask(domain), 404, 'not_found').issue]).toEqual([domain, false]);
  }

  // A catalog being deleted gets no certificate.
  const leaving = await newWarehouse(admin.api_key, project);
  expect((await ask(`${leaving.bucket}.${host}`)).status).toBe(200);
  await sql(`UPDATE warehouses SET status = 'deleting', deleted_at = now() WHERE id = $1`, [leaving.warehouse_id]);
  expectError(await ask(`${leaving.bucket}.${host}`), 404, 'not_found');
  expectError(await ask(`${leaving.blob_bucket}.${host}`), 404, 'not_found');
});

test('the public tier: a public catalog\'s table bytes leave the private storage limit; its blob bytes stay in it', async () => {
  const { admin } = await newOrgWithAdmin();
  const project = (await newProject(admin.api_key)).project_id;
  const w = await newWarehouse(admin.api_key, project);
  const sample = (table: number, blob: number) => sql(
    `INSERT INTO usage_samples (warehouse_id, source, table_bytes, blob_bytes, objects, blob_objects, complete) VALUES ($1, 'sweep', $2, $3, 1, 1, true)`, [w.warehouse_id, table, blob]);
  const create = () => gateway().post('/v1/warehouses').set(bearer(admin.api_key)).send({ project_id: project, name: `more_${uniq()}` });
  await sample(6_000_000_000, 0);
  expect(expectError(await create(), 409, 'quota_exceeded')).toMatchObject({ current: 6_000_000_000 });
  await publish(admin.api_key, w);
  expect((await create()).status).toBe(201);
  await sample(6_000_000_000, 5_400_000_000);
  expect(expectError(await create(), 409, 'quota_exceeded')).toMatchObject({ current: 5_400_000_000 });
  await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).expect(200);
  expect(expectError(await create(), 409, 'quota_exceeded')).toMatchObject({ current: 11_400_000_000 });
});

test('files_prefix: only one table\'s files are public; its connection lists that table alone; the prefix is validated and can be widened', async () => {
  const { org, admin } = await newOrgWithAdmin();
  const name = `part_${uniq()}`;
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id, name);
  const cred = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id, level: 'write' }).set(bearer(admin.api_key))).body.catalog_credential;
  const tok = await token(cred.client_id, cred.client_secret);
  const c = icebergClient(w.warehouse_id, tok);
  for (const ns of ['open', 'shut']) {
    await c.createNamespace({ namespace: [ns] });
    await c.createTable({ namespace: [ns] }, { name: 'cities', schema: schema as never });
    await appendRows({ warehouseId: w.warehouse_id, bucket: w.bucket, token: tok, namespace: ns, table: 'cities' }, [{ id: 1n, city: ns }]);
  }
  // The catalog's own answers, with each table's current metadata file.
  const load = async (ns: string) => (await request(stack().catalog_url).get(`/v1/${w.warehouse_id}/namespaces/${ns}/tables/cities`).set(bearer(tok)).expect(200)).body;
  const [open, shut] = [await load('open'), await load('shut')];
  const anonymousUrlOf = (location: string) => `${stack().s3_url}/${location.replace(/^s3:\/\//, '')}`;
  const openLocation = String(open.metadata.location);
  const prefix = `${openLocation.replace(`s3://${w.bucket}/`, '')}/`;
  const post = (body: Record<string, unknown>) => gateway().post(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).send({ confirm: name, ...body });

  // Refused before anything changes: the catalog stays private.
  for (const bad of ['s3://someone-elses-bucket/open/', '../x/', '/open/', 'open/*', 'open\u0007/', 7]) {
    expect(expectError(await post({ files_prefix: bad }), 400, 'invalid_files_prefix')).toMatchObject({ field: 'files_prefix', example: 'lake/cities/' });
  }
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.public).toBe(false);

  // Published by the table's location: the answer, the row and the connection say the prefix.
  const on = await post({ files_prefix: openLocation });
  expect(on.status).toBe(200);
  expect(on.body).toMatchObject({
    public: true, files_prefix: prefix, public_url: `${stack().s3_url}/${w.bucket}/${prefix}`,
    public_read: { bucket: w.bucket, prefix, anonymous_get: true, anonymous_list: false, writes: 'refused', catalog: 'private' },
  });
  expect(JSON.stringify(on.body.policy)).toContain(`arn:aws:s3:::${w.bucket}/${prefix}*`);
  expect((await gateway().get(`/v1/warehouses/${w.warehouse_id}`).set(bearer(admin.api_key))).body.public_url).toBe(`${stack().s3_url}/${w.bucket}/${prefix}`);
  const conn = (await gateway().get(publicPath(org.handle, name))).body;
  expect(conn).toMatchObject({ files_prefix: prefix, public_url: `${stack().s3_url}/${w.bucket}/${prefix}`, count: 1 });
  expect(conn.tables.map((t: { table: string }) => t.table)).toEqual(['open.cities']);

  // Anonymous reads: the open table's rows, and nothing of the other.
  const openMeta = await fetch(conn.tables[0].metadata_url);
  expect(openMeta.status).toBe(200);
  const rows = await readPublicWithIcebird(stack().s3_url, await openMeta.json());
  expect(rows.map((r: { city: string }) => r.city)).toEqual(['open']);
  const shutUrl = anonymousUrlOf(shut['metadata-location']);
  expect((await fetch(shutUrl)).status).toBe(403);

  // The same prefix again changes nothing; the whole bucket widens it, audited as a change of prefix.
  expect((await post({ files_prefix: `${prefix}` })).body.note).toMatch(/nothing changed/);
  const wide = await post({});
  expect(wide.body).toMatchObject({ files_prefix: '', public_url: `${stack().s3_url}/${w.bucket}/` });
  expect((await fetch(shutUrl)).status).toBe(200);
  expect((await gateway().get(publicPath(org.handle, name))).body.count).toBe(2);
  const audit = await gateway().get('/v1/audit').query({ org_id: org.org_id, action: 'warehouse.update' }).set(bearer(admin.api_key));
  const changes = audit.body.events.filter((e: { target_id: string }) => e.target_id === w.warehouse_id).map((e: { data: unknown }) => e.data);
  expect(changes).toEqual(expect.arrayContaining([
    { changes: { public: true, files_prefix: prefix }, previous: { public: false } },
    { changes: { files_prefix: '' }, previous: { files_prefix: prefix } },
  ]));
  await gateway().delete(`/v1/warehouses/${w.warehouse_id}/public`).set(bearer(admin.api_key)).expect(200);
  expect((await fetch(anonymousUrlOf(open['metadata-location']))).status).toBe(403);
}, 90_000);
