import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { IcebergRestCatalog } from 'iceberg-js';
import { adminStorage } from '../support/store';
import { registerTestTable, type TestTable } from '../support/table';
import { validatingFetch } from '../support/openapi';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { sessionS3 } from './append-helpers';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, stack } from './helpers';

// Table routes that need no metadata engine: load (with ETag and vended
// credentials), exists, list, rename, drop with purge, load credentials.

let wh: TestWarehouse;
let orders: TestTable;
let rwToken: string;
let roToken: string;


beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  orders = await registerTestTable(stack().database_url, wh, wh.storage, ['shop'], 'orders');
  await registerTestTable(stack().database_url, wh, wh.storage, ['shop'], 'customers');
  rwToken = await token(wh.rw.clientId, wh.rw.clientSecret);
  roToken = await token(wh.ro.clientId, wh.ro.clientSecret);
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

const path = (ns: string, t?: string) => `/v1/${wh.id}/namespaces/${ns}/tables${t ? `/${t}` : ''}`;

test('loadTable returns the stored metadata exactly (64-bit ids intact), its location and an ETag; If-None-Match gives 304', async () => {
  const res = await catalog().get(path('shop', 'orders')).set(bearer(rwToken));
  expect(res.status).toBe(200);
  expect(res.body['metadata-location']).toBe(orders.metadataLocation);
  expect(res.body.metadata).toMatchObject({ 'format-version': 2, 'table-uuid': orders.tableUuid, location: orders.location });
  expect(res.text).toContain(`"current-snapshot-id":${orders.snapshotId}`);
  expect(res.body.config).toEqual({});
  const etag = res.headers.etag;
  expect(etag).toMatch(/^W\/".+"$/);
  expect((await catalog().get(path('shop', 'orders')).set(bearer(rwToken)).set('If-None-Match', etag)).status).toBe(304);
});

test('iceberg-js loads the table and lists the namespace', async () => {
  const c = new IcebergRestCatalog({ baseUrl: stack().catalog_url, fetch: validatingFetch(stack().catalog_url), warehouse: wh.id, auth: { type: 'bearer', token: roToken } });
  const meta = await c.loadTable({ namespace: ['shop'], name: 'orders' });
  expect(meta['table-uuid']).toBe(orders.tableUuid);
  expect((await c.listTables({ namespace: ['shop'] })).identifiers.map((i) => i.name)).toEqual(['customers', 'orders']);
  expect(await c.tableExists({ namespace: ['shop'], name: 'orders' })).toBe(true);
  expect(await c.tableExists({ namespace: ['shop'], name: 'nope' })).toBe(false);
});

test('a table in a namespace that does not exist is NoSuchTableException on every table route, as the reference server answers', async () => {
  // The Java client depends on it: metadata tables (db.t.files), time-travel selectors and dropTable returning false.
  icebergError(await catalog().get(path('shop', 'nope')).set(bearer(rwToken)), 404, 'NoSuchTableException');
  icebergError(await catalog().get(path('nowhere', 'orders')).set(bearer(rwToken)), 404, 'NoSuchTableException');
  icebergError(await catalog().delete(path('nowhere', 'orders')).set(bearer(rwToken)), 404, 'NoSuchTableException');
  icebergError(await catalog().delete(path('nowhere', 'orders')).query({ purgeRequested: 'true' }).set(bearer(rwToken)), 404, 'NoSuchTableException');
  icebergError(await catalog().post(path('nowhere', 'orders')).set(bearer(rwToken)).send({ requirements: [], updates: [] }), 404, 'NoSuchTableException');
  icebergError(await catalog().get(`${path('nowhere', 'orders')}/credentials`).set(bearer(rwToken)), 404, 'NoSuchTableException');
  expect((await catalog().head(path('nowhere', 'orders')).set(bearer(rwToken))).status).toBe(404);
  // Listing a namespace that does not exist is still NoSuchNamespaceException.
  icebergError(await catalog().get(path('nowhere')).set(bearer(rwToken)), 404, 'NoSuchNamespaceException');
});

test('If-None-Match honours a list of tags and *', async () => {
  const etag = (await catalog().get(path('shop', 'orders')).set(bearer(rwToken))).headers.etag;
  const ifNoneMatch = (value: string) => catalog().get(path('shop', 'orders')).set(bearer(rwToken)).set('If-None-Match', value);
  for (const value of [`W/"stale", ${etag}`, `${etag},W/"other"`, '*', etag.slice(2)]) {
    const res = await ifNoneMatch(value);
    expect([value, res.status]).toEqual([value, 304]);
    expect(res.headers.etag).toBe(etag);
  }
  for (const value of ['W/"stale"', 'W/"a", W/"b"']) {
    expect([value, (await ifNoneMatch(value)).status]).toEqual([value, 200]);
  }
});

test('vended credentials reach the table\'s files only; read-only for the read-only credential', async () => {
  const status = async (p: Promise<unknown>) => p.then(() => 200, (e) => e.$metadata?.httpStatusCode ?? -1);
  const key = orders.location.slice(`s3://${wh.tableBucket}/`.length);

  const rw = await catalog().get(path('shop', 'orders')).set(bearer(rwToken)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
  expect(rw.status).toBe(200);
  expect(rw.body['storage-credentials']).toEqual([{ prefix: orders.location, config: rw.body.config }]);
  const expiresIn = Number(rw.body.config['s3.session-token-expires-at-ms']) - Date.now();
  expect(expiresIn).toBeGreaterThan(0);
  expect(expiresIn).toBeLessThanOrEqual(900_000);
  const rwS3 = sessionS3(rw.body.config);
  expect(await status(rwS3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: `${key}/data/part-0.parquet` })))).toBe(200);
  expect(await status(rwS3.send(new PutObjectCommand({ Bucket: wh.tableBucket, Key: `${key}/data/part-1.parquet`, Body: 'x' })))).toBe(200);
  const sibling = (await catalog().get(path('shop', 'customers')).set(bearer(rwToken))).body.metadata.location.slice(`s3://${wh.tableBucket}/`.length);
  expect(await status(rwS3.send(new GetObjectCommand({ Bucket: wh.tableBucket, Key: `${sibling}/data/part-0.parquet` })))).toBe(403);

  const ro = await catalog().get(`${path('shop', 'orders')}/credentials`).set(bearer(roToken));
  expect(ro.status).toBe(200);
  const roS3 = sessionS3(ro.body['storage-credentials'][0].config);
  expect(await status(roS3.send(new ListObjectsV2Command({ Bucket: wh.tableBucket, Prefix: `${key}/` })))).toBe(200);
  expect(await status(roS3.send(new PutObjectCommand({ Bucket: wh.tableBucket, Key: `${key}/data/evil.parquet`, Body: 'x' })))).toBe(403);
});

test('rename moves the table; the old name is gone; a taken or missing destination is refused', async () => {
  await catalog().post(`/v1/${wh.id}/namespaces`).set(bearer(rwToken)).send({ namespace: ['archive'] }).expect(200);
  const move = (source: object, destination: object, t = rwToken) => catalog().post(`/v1/${wh.id}/tables/rename`).set(bearer(t)).send({ source, destination });
  icebergError(await move({ namespace: ['shop'], name: 'customers' }, { namespace: ['archive'], name: 'customers' }, roToken), 403, 'ForbiddenException');
  icebergError(await move({ namespace: ['shop'], name: 'customers' }, { namespace: ['shop'], name: 'orders' }), 409, 'AlreadyExistsException');
  icebergError(await move({ namespace: ['shop'], name: 'customers' }, { namespace: ['nowhere'], name: 'x' }), 404, 'NoSuchNamespaceException');
  icebergError(await move({ namespace: ['shop'], name: 'ghost' }, { namespace: ['archive'], name: 'x' }), 404, 'NoSuchTableException');
  expect((await move({ namespace: ['shop'], name: 'customers' }, { namespace: ['archive'], name: 'clients' })).status).toBe(204);
  expect((await catalog().head(path('shop', 'customers')).set(bearer(rwToken))).status).toBe(404);
  expect((await catalog().head(path('archive', 'clients')).set(bearer(rwToken))).status).toBe(204);
});

test('a namespace with tables cannot be dropped', async () => {
  icebergError(await catalog().delete(`/v1/${wh.id}/namespaces/shop`).set(bearer(rwToken)), 409, 'NamespaceNotEmptyException');
});

test('drop: the read-only credential cannot; a plain drop keeps files; purge removes them in the background', async () => {
  const kept = await registerTestTable(stack().database_url, wh, wh.storage, ['tmp'], 'kept');
  const purged = await registerTestTable(stack().database_url, wh, wh.storage, ['tmp'], 'purged');
  icebergError(await catalog().delete(path('tmp', 'kept')).set(bearer(roToken)), 403, 'ForbiddenException');
  expect((await catalog().delete(path('tmp', 'kept')).set(bearer(rwToken))).status).toBe(204);
  expect((await catalog().delete(path('tmp', 'purged')).query({ purgeRequested: 'true' }).set(bearer(rwToken))).status).toBe(204);
  for (const t of ['kept', 'purged']) icebergError(await catalog().get(path('tmp', t)).set(bearer(rwToken)), 404, 'NoSuchTableException');

  const admin = adminStorage();
  const count = async (loc: string) => (await admin.s3.send(new ListObjectsV2Command({ Bucket: wh.tableBucket, Prefix: `${loc.slice(`s3://${wh.tableBucket}/`.length)}/` }))).KeyCount ?? 0;
  const deadline = Date.now() + 20_000;
  while ((await count(purged.location)) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
  expect(await count(purged.location)).toBe(0);
  expect(await count(kept.location)).toBe(2);
}, 40_000);
