import type request from 'supertest';
import { catalog, token } from './catalog-helpers';
import { bearer, gateway, newMember, newOrgWithAdmin, newProject, newWarehouse, uniq } from './control-plane-helpers';
import { identity, newPrincipal, stack } from './helpers';
import { sinkTestSchema } from './sink-helpers';

// Every answer that carries a secret — a key, a token, a catalog credential,
// vended storage keys, a send key or device URL — says `Cache-Control:
// no-store`, so no shared cache, proxy or browser keeps it. Public documents
// (JWKS, OpenID discovery, the formats document) stay cacheable.

const noStore = (res: request.Response, status: number) => {
  expect({ status: res.status, cacheControl: res.headers['cache-control'] }).toEqual({ status, cacheControl: 'no-store' });
};

test('identity: POST /internal/principals, POST /v1/api-keys and POST /v1/tokens', async () => {
  const created = await identity().post('/internal/principals').set(bearer(stack().bootstrap_secret)).send({ kind: 'agent', label: 'cc' });
  noStore(created, 201);
  expect(created.body.api_key).toMatch(/^al_live_/);
  const key = await gateway().post('/v1/api-keys').set(bearer(created.body.api_key)).send({ label: 'another' });
  noStore(key, 201);
  expect(key.body.api_key).toMatch(/^al_live_/);
  const tokens = await gateway().post('/v1/tokens').send({ api_key: key.body.api_key });
  noStore(tokens, 200);
  expect(tokens.body.access_token).toEqual(expect.any(String));
});

test('control plane: sign-up, onboarding, the connection recipe and a rotation', async () => {
  const signup = await gateway().post('/v1/signup').send({ email: `cc-${uniq()}@example.com`, workspace: `cc-${uniq()}`, accept_terms: true });
  noStore(signup, 201);
  expect(signup.body.connection.catalog_credential.client_secret).toEqual(expect.any(String));

  const onboard = await gateway().post('/v1/onboard').set(bearer(signup.body.api_key)).send({});
  noStore(onboard, 200);
  expect(onboard.body.connection.catalog_credential.client_secret).toEqual(expect.any(String));

  const connection = await gateway().get('/v1/connection').query({ warehouse: signup.body.warehouse_id }).set(bearer(signup.body.api_key));
  noStore(connection, 200);

  const rotated = await gateway().post(`/v1/warehouses/${signup.body.warehouse_id}/rotate`).set(bearer(signup.body.api_key)).send({});
  noStore(rotated, 200);
  expect(JSON.stringify(rotated.body)).toContain('client_secret');
});

test('tables and sinks: vended credentials, the send key and the device URL', async () => {
  const { org, admin } = await newOrgWithAdmin();
  await newMember(org);
  const w = await newWarehouse(admin.api_key, (await newProject(admin.api_key)).project_id);
  await gateway().post('/v1/tables').set(bearer(admin.api_key)).send({ warehouse_id: w.name, namespace: 'cc', name: 't', schema: sinkTestSchema }).expect(201);

  const vended = await gateway().post('/v1/credentials').set(bearer(admin.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'cc', name: 't' });
  noStore(vended, 200);
  expect(JSON.stringify(vended.body)).toContain('secret');

  const sink = await gateway().post('/v1/sinks').set(bearer(admin.api_key)).send({ name: `s_${uniq()}`, table: 'cc.t', warehouse: w.warehouse_id });
  noStore(sink, 201);
  expect(sink.body.send_key).toEqual(expect.any(String));

  const device = await gateway().post(`/v1/sinks/${sink.body.sink_id}/device-token`).set(bearer(admin.api_key)).send({});
  noStore(device, 201);
  expect(device.body.device_url).toContain('/d/');
});

test('catalog: the token exchange, load-table with vended credentials and the credentials route', async () => {
  const p = await newPrincipal();
  const w = await newWarehouse(p.api_key, (await newProject(p.api_key)).project_id);
  await gateway().post('/v1/tables').set(bearer(p.api_key)).send({ warehouse_id: w.warehouse_id, namespace: 'cc', name: 't', schema: sinkTestSchema }).expect(201);
  const { client_id, client_secret } = (await gateway().get('/v1/connection').query({ warehouse: w.warehouse_id }).set(bearer(p.api_key))).body.catalog_credential;

  const exchange = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id, client_secret });
  noStore(exchange, 200);
  const refused = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id, client_secret: 'wrong' });
  noStore(refused, 401);

  const t = await token(client_id, client_secret);
  const table = `/v1/${w.warehouse_id}/namespaces/cc/tables/t`;
  const loaded = await catalog().get(table).set(bearer(t)).set('X-Iceberg-Access-Delegation', 'vended-credentials');
  noStore(loaded, 200);
  expect(loaded.body['storage-credentials'][0].config['s3.secret-access-key']).toEqual(expect.any(String));
  const credentials = await catalog().get(`${table}/credentials`).set(bearer(t));
  noStore(credentials, 200);
  expect(credentials.body['storage-credentials'][0].config['s3.secret-access-key']).toEqual(expect.any(String));
});

test('public documents stay cacheable: JWKS, OpenID discovery and the formats document', async () => {
  for (const path of ['/jwks.json', '/.well-known/jwks.json']) {
    expect((await gateway().get(path)).headers['cache-control']).toBe('public, max-age=60');
  }
  expect((await gateway().get('/.well-known/openid-configuration')).headers['cache-control']).toBe('public, max-age=3600');
  expect((await gateway().get('/v1/config/formats')).headers['cache-control']).toBe('public, max-age=3600');
});
