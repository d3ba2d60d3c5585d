// A newcomer's first five minutes, through the gateway, with nothing but what
// each answer hands over: sign up, see the catalog, take the connection
// recipe's credential to the Iceberg catalog, create tables both ways, append
// rows and see them counted, rotate the credentials, publish and unpublish.
import { uniq } from './control-plane-helpers';
import { appendRows, icebergClient } from './append-helpers';
import { token } from './catalog-helpers';
import { bearer, expectError, gateway, stack } from './helpers';

const schema = {
  type: 'struct', 'schema-id': 0,
  fields: [{ id: 1, name: 'id', required: true, type: 'long' }, { id: 2, name: 'city', required: false, type: 'string' }],
};

async function exchange(clientId: string, clientSecret: string): Promise<number> {
  const res = await fetch(`${stack().catalog_url}/v1/oauth/tokens`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret }),
  });
  return res.status;
}

test('sign up, connect, create, append, count, rotate, publish', async () => {
  const workspace = `acme-${uniq()}`;
  const signup = await gateway().post('/v1/signup').send({ email: `${workspace}@example.com`, workspace, engine: 'pyiceberg', accept_terms: true });
  expect(signup.status).toBe(201);
  const key: string = signup.body.api_key;
  expect(key).toMatch(/^al_live_/);

  const list = await gateway().get('/v1/warehouses').set(bearer(key));
  expect(list.status).toBe(200);
  const lake = list.body.warehouses.find((w: { name: string }) => w.name === 'lake');
  expect(lake).toMatchObject({ status: 'ready', my_level: 'write', my_via: 'admin', warehouse_id: signup.body.warehouse_id });

  const conn = await gateway().get('/v1/connection').query({ warehouse: 'lake', engine: 'pyiceberg' }).set(bearer(key));
  expect(conn.status).toBe(200);
  const cred = conn.body.catalog_credential as { client_id: string; client_secret: string };
  expect(cred.client_id).toMatch(/^t-[0-9a-f-]{36}$/);
  expect(conn.body.recipe).toContain(cred.client_secret);

  // Only the recipe's credential from here on, as an engine would.
  const catalogToken = await token(cred.client_id, cred.client_secret);
  const engine = icebergClient(lake.warehouse_id, catalogToken);
  expect((await engine.listNamespaces()).namespaces).toEqual([]);
  await engine.createNamespace({ namespace: ['web'] });
  await engine.createTable({ namespace: ['web'] }, { name: 'visits', schema: schema as never });

  const created = await gateway().post('/v1/tables').set(bearer(key))
    .send({ warehouse_id: 'lake', namespace: 'web', name: 'orders', schema });
  expect(created.status).toBe(201);
  expect(created.body).toMatchObject({ table: 'web.orders', format_version: 2, format_version_source: 'catalog_default' });

  await appendRows({ warehouseId: lake.warehouse_id, bucket: lake.bucket, token: catalogToken, namespace: 'web', table: 'visits' },
    [{ id: 1n, city: 'Lisbon' }, { id: 2n, city: 'Porto' }, { id: 3n, city: null }]);
  const table = await gateway().get('/v1/table').query({ warehouse: 'lake', namespace: 'web', name: 'visits' }).set(bearer(key));
  expect(table.status).toBe(200);
  expect(table.body).toMatchObject({ rows: 3, rows_source: 'snapshot_summary', rows_is_exact: true, data_files: 1 });

  // Rotate: the old read/write secret is refused at once, the read-only one within 30 s.
  const ro = (await gateway().get('/v1/connection').query({ warehouse: 'lake', level: 'read' }).set(bearer(key))).body.catalog_credential;
  const rotated = await gateway().post(`/v1/warehouses/${lake.warehouse_id}/rotate`).set(bearer(key));
  expect(rotated.status).toBe(200);
  expect(rotated.body).toMatchObject({ previous_client_id: cred.client_id, previous_revoked: true, previous_client_id_ro: ro.client_id, previous_revoked_ro: false });
  expect(await exchange(cred.client_id, cred.client_secret)).toBe(401);
  const stale = await fetch(`${stack().catalog_url}/v1/${lake.warehouse_id}/namespaces`, { headers: bearer(catalogToken) });
  expect(stale.status).toBe(401);
  expect(await exchange(rotated.body.catalog_credential.client_id, rotated.body.catalog_credential.client_secret)).toBe(200);
  expect(await exchange(rotated.body.catalog_credential_ro.client_id, rotated.body.catalog_credential_ro.client_secret)).toBe(200);
  const deadline = Date.now() + 30_000;
  while (await exchange(ro.client_id, ro.client_secret) === 200) {
    if (Date.now() > deadline) throw new Error('the old read-only secret still works 30 s after the rotate');
    await new Promise((r) => setTimeout(r, 1000));
  }

  // Publish: anyone reads the table's metadata file without credentials, nobody writes; unpublish stops reads at once.
  const published = await gateway().post(`/v1/warehouses/${lake.warehouse_id}/public`).set(bearer(key)).send({ confirm: 'lake' });
  expect(published.status).toBe(200);
  const publicUrl: string = published.body.public_url;
  const metadataKey = String(table.body.metadata_location ?? (await currentMetadata(key))).replace(`s3://${lake.bucket}/`, '');
  expect((await fetch(`${publicUrl}${metadataKey}`)).status).toBe(200);
  expect((await fetch(`${publicUrl}web/intruder.txt`, { method: 'PUT', body: 'x' })).status).toBe(403);
  const unpublished = await gateway().delete(`/v1/warehouses/${lake.warehouse_id}/public`).set(bearer(key));
  expect(unpublished.status).toBe(200);
  expect((await fetch(`${publicUrl}${metadataKey}`)).status).toBe(403);

  expectError(await gateway().get('/v1/warehouses').set(bearer(cred.client_secret)), 401, 'unauthorized');
}, 90_000);

/** The table's current metadata file, read through the catalog with the rotated credential's successor. */
async function currentMetadata(key: string): Promise<string> {
  const conn = await gateway().get('/v1/connection').query({ warehouse: 'lake' }).set(bearer(key));
  const t = await token(conn.body.catalog_credential.client_id, conn.body.catalog_credential.client_secret);
  const res = await fetch(`${stack().catalog_url}/v1/${conn.body.warehouse_id}/namespaces/web/tables/visits`, { headers: bearer(t) });
  return (await res.json())['metadata-location'];
}
