import request from 'supertest';
import { IcebergRestCatalog } from 'iceberg-js';
import { validatingFetch } from '../support/openapi';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { catalog, icebergError, token } from './catalog-helpers';
import { bearer, gateway, newPrincipal, stack } from './helpers';
import { compatibility } from '../../scripts/catalog-compatibility';

// The Iceberg REST catalog's token exchange, surface separation, config and
// namespaces, driven with iceberg-js and raw HTTP.

let wh: TestWarehouse;
let other: TestWarehouse;

const client = (t: string, warehouse: string) => new IcebergRestCatalog({ baseUrl: stack().catalog_url, fetch: validatingFetch(stack().catalog_url), warehouse, auth: { type: 'bearer', token: t } });


beforeAll(async () => {
  wh = await createTestWarehouse(stack());
  other = await createTestWarehouse(stack());
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
  await removeTestWarehouse(other);
}, 60_000);

describe('POST /v1/oauth/tokens (client_credentials)', () => {
  test('form-encoded client credentials get a bearer token scoped to the catalog', async () => {
    const res = await catalog().post('/v1/oauth/tokens').type('form')
      .send({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret, scope: 'catalog' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.any(String), token_type: 'bearer', expires_in: 3600,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    });
    const claims = JSON.parse(Buffer.from(res.body.access_token.split('.')[1], 'base64url').toString());
    expect(claims).toMatchObject({ aud: stack().catalog_url, iss: stack().base_url, sub: wh.rw.clientId, warehouse_id: wh.id, access: 'write', kind: 'catalog' });
  });

  test('HTTP Basic client authentication works too', async () => {
    const basic = Buffer.from(`${wh.ro.clientId}:${wh.ro.clientSecret}`).toString('base64');
    const res = await catalog().post('/v1/oauth/tokens').set('Authorization', `Basic ${basic}`).type('form').send({ grant_type: 'client_credentials' });
    expect(res.status).toBe(200);
  });

  test('a wrong secret or unknown client is 401 invalid_client; other grants 400', async () => {
    const wrong = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id: wh.rw.clientId, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    const unknown = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials', client_id: 't-nobody', client_secret: 'x' });
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const grant = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'password', client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret });
    expect(grant.status).toBe(400);
    expect(grant.body.error).toBe('unsupported_grant_type');
    const missing = await catalog().post('/v1/oauth/tokens').type('form').send({ grant_type: 'client_credentials' });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe('invalid_request');
  });
});

describe('a credential from one surface is refused on the other', () => {
  test('an API key and a control-plane token are 401 at the catalog', async () => {
    const p = await newPrincipal();
    const cpToken = (await gateway().post('/v1/tokens').send({ api_key: p.api_key })).body.access_token;
    for (const cred of [p.api_key, cpToken, 'garbage']) {
      icebergError(await catalog().get('/v1/config').set(bearer(cred)), 401, 'NotAuthorizedException');
    }
    icebergError(await catalog().get('/v1/config'), 401, 'NotAuthorizedException');
  });

  test('a catalog token is 401 at the control plane', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    for (const path of ['/v1/api-keys', '/v1/warehouses', '/v1/projects', `/v1/table?warehouse=${wh.id}&namespace=a&name=b`]) {
      const res = await gateway().get(path).set(bearer(t));
      expect([path, res.status, res.body.error.code]).toEqual([path, 401, 'unauthorized']);
    }
  });

  test('a catalog client secret is not a control-plane credential either', async () => {
    expect((await gateway().post('/v1/tokens').send({ api_key: wh.rw.clientSecret })).status).toBe(401);
  });
});

describe('GET /v1/config', () => {
  test('selects the warehouse by id or name, with the engine defaults and implemented endpoints', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    for (const q of [wh.id, wh.name]) {
      const res = await catalog().get('/v1/config').query({ warehouse: q }).set(bearer(t));
      expect(res.status).toBe(200);
      expect(res.body.overrides).toEqual({ prefix: wh.id, warehouse: `s3://${wh.tableBucket}/` });
      expect(res.body.defaults).toMatchObject({ 's3.endpoint': stack().s3_url, 's3.path-style-access': 'true' });
      // Exactly the operations docs/catalog-compatibility.md calls served, but discovery and the token exchange.
      expect(res.body.endpoints).toEqual(compatibility()
        .filter((r) => r.floe === 'served' && r.operationId !== 'getConfig' && r.operationId !== 'getToken')
        .map((r) => `${r.method} ${r.path}`));
      expect(res.body.endpoints).toContain('POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/unregister');
    }
  });

  test('another warehouse, by id or name, is 404 for this credential', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    for (const q of [other.id, other.name]) {
      icebergError(await catalog().get('/v1/config').query({ warehouse: q }).set(bearer(t)), 404, 'NoSuchWarehouseException');
    }
    icebergError(await catalog().get(`/v1/${other.id}/namespaces`).set(bearer(t)), 404, 'NoSuchWarehouseException');
  });
});

describe('namespaces through iceberg-js', () => {
  test('create, list, load, exists, update properties, drop', async () => {
    const c = client(await token(wh.rw.clientId, wh.rw.clientSecret), wh.name);
    await c.createNamespace({ namespace: ['sales'] }, { properties: { owner: 'ana' } });
    await c.createNamespace({ namespace: ['sales', 'eu'] });
    await c.createNamespace({ namespace: ['marketing'] });
    expect((await c.listNamespaces()).namespaces).toEqual([{ namespace: ['marketing'] }, { namespace: ['sales'] }]);
    expect((await c.listNamespaces({ parent: { namespace: ['sales'] } })).namespaces).toEqual([{ namespace: ['sales', 'eu'] }]);
    expect(await c.loadNamespaceMetadata({ namespace: ['sales'] })).toEqual({ properties: { owner: 'ana' } });
    expect(await c.namespaceExists({ namespace: ['sales', 'eu'] })).toBe(true);
    expect(await c.namespaceExists({ namespace: ['nope'] })).toBe(false);
    const changed = await c.updateNamespaceProperties({ namespace: ['sales'] }, { removals: ['owner', 'absent'], updates: { team: 'eu' } });
    expect(changed).toEqual({ updated: ['team'], removed: ['owner'], missing: ['absent'] });
    expect(await c.loadNamespaceMetadata({ namespace: ['sales'] })).toEqual({ properties: { team: 'eu' } });
    await c.dropNamespace({ namespace: ['sales', 'eu'] });
    await c.dropNamespace({ namespace: ['marketing'] });
    expect((await c.listNamespaces()).namespaces).toEqual([{ namespace: ['sales'] }]);
  });

  test('refusals: unknown namespace 404, existing 409, non-empty drop 409, read-only writes 403', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    const ro = await token(wh.ro.clientId, wh.ro.clientSecret);
    const p = `/v1/${wh.id}/namespaces`;
    await catalog().post(p).set(bearer(t)).send({ namespace: ['ops'] }).expect(200);
    await catalog().post(p).set(bearer(t)).send({ namespace: ['ops', 'daily'] }).expect(200);
    icebergError(await catalog().get(`${p}/missing`).set(bearer(t)), 404, 'NoSuchNamespaceException');
    expect((await catalog().head(`${p}/missing`).set(bearer(t))).status).toBe(404);
    icebergError(await catalog().post(p).set(bearer(t)).send({ namespace: ['ops'] }), 409, 'AlreadyExistsException');
    icebergError(await catalog().post(p).set(bearer(t)).send({ namespace: ['nowhere', 'child'] }), 400, 'BadRequestException');
    icebergError(await catalog().delete(`${p}/ops`).set(bearer(t)), 409, 'NamespaceNotEmptyException');
    icebergError(await catalog().post(p).set(bearer(t)).send({ namespace: [] }), 400, 'BadRequestException');
    icebergError(await catalog().post(`${p}/ops/properties`).set(bearer(t)).send({ removals: ['a'], updates: { a: '1' } }), 422, 'UnprocessableEntityException');

    // The read-only credential reads everything and changes nothing.
    expect((await catalog().get(p).set(bearer(ro))).body.namespaces).toContainEqual(['ops']);
    icebergError(await catalog().post(p).set(bearer(ro)).send({ namespace: ['ro_made'] }), 403, 'ForbiddenException');
    icebergError(await catalog().delete(`${p}/ops%1Fdaily`).set(bearer(ro)), 403, 'ForbiddenException');
    icebergError(await catalog().post(`${p}/ops/properties`).set(bearer(ro)).send({ updates: { a: '1' } }), 403, 'ForbiddenException');

    await catalog().delete(`${p}/ops%1Fdaily`).set(bearer(t)).expect(204);
    await catalog().delete(`${p}/ops`).set(bearer(t)).expect(204);
  });

  test('listing pages with pageSize and next-page-token', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    const p = `/v1/${wh.id}/namespaces`;
    for (const n of ['pg_a', 'pg_b', 'pg_c']) await catalog().post(p).set(bearer(t)).send({ namespace: [n] }).expect(200);
    const seen: string[][] = [];
    let pageToken: string | undefined;
    do {
      const res = await catalog().get(p).query({ pageSize: 2, ...(pageToken ? { pageToken } : {}) }).set(bearer(t));
      expect(res.status).toBe(200);
      expect(res.body.namespaces.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.namespaces);
      pageToken = res.body['next-page-token'];
    } while (pageToken);
    expect(seen.filter((n) => n[0].startsWith('pg_'))).toEqual([['pg_a'], ['pg_b'], ['pg_c']]);
  });

  test('a pageToken the catalog did not make is 400, on every list route; an empty one starts at the beginning', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    const p = `/v1/${wh.id}/namespaces`;
    await catalog().post(p).set(bearer(t)).send({ namespace: ['tok'] }).expect(200);
    for (const bad of ['not a token', 'abc', '%%%', 'eyJ', Buffer.from('pg_a').toString('base64url')]) {
      icebergError(await catalog().get(p).query({ pageToken: bad }).set(bearer(t)), 400, 'BadRequestException');
      icebergError(await catalog().get(`${p}/tok/tables`).query({ pageToken: bad }).set(bearer(t)), 400, 'BadRequestException');
      icebergError(await catalog().get(`${p}/tok/views`).query({ pageToken: bad }).set(bearer(t)), 400, 'BadRequestException');
    }
    const first = await catalog().get(p).query({ pageToken: '' }).set(bearer(t));
    expect(first.status).toBe(200);
    expect(first.body.namespaces).toContainEqual(['tok']);
    await catalog().delete(`${p}/tok`).set(bearer(t)).expect(204);
  });
});

describe('every operation of the document', () => {
  test('is served after authentication and advertised in endpoints (none answers 501 today)', async () => {
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    icebergError(await catalog().get(`/v1/${wh.id}/namespaces/sales/functions`), 401, 'NotAuthorizedException');
    const config = await catalog().get('/v1/config').set(bearer(t));
    for (const op of ['GET /v1/{prefix}/namespaces/{namespace}/functions', 'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/plan',
      'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/sign', 'POST /v1/{prefix}/transactions/commit']) {
      expect(config.body.endpoints).toContain(op);
    }
    expect(config.body.endpoints).toHaveLength(33);
  });

  test('an unknown path and a wrong method answer in the Iceberg error model', async () => {
    // Off the OpenAPI document on purpose, so the plain client (no response validation).
    const raw = () => request(stack().catalog_url);
    const t = await token(wh.rw.clientId, wh.rw.clientSecret);
    icebergError(await raw().get('/v2/nothing').set(bearer(t)), 404, 'NotFoundException');
    const r405 = await raw().put(`/v1/${wh.id}/namespaces`).set(bearer(t)).send({});
    icebergError(r405, 405, 'BadRequestException');
    expect(r405.headers.allow).toBe('GET, HEAD, POST');
  });
});
