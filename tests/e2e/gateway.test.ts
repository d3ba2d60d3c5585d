import { readFileSync } from 'node:fs';
import request from 'supertest';
import { bearer, expectError, gateway, identity, newPrincipal, stack } from './helpers';

describe('the gateway edge', () => {
  test('an unknown path is 404 in the envelope', async () => {
    const res = await gateway().get('/no/such/thing');
    expectError(res, 404, 'not_found');
  });

  test('an incoming X-Request-Id is kept across the hop and echoed in errors', async () => {
    const rid = 'client-chosen-id-0001';
    const res = await gateway().post('/v1/tokens').set('X-Request-Id', rid).send({});
    expect(res.headers['x-request-id']).toBe(rid);
    const err = expectError(res, 400, 'missing_field');
    expect(err.request_id).toBe(rid);
    expect(err.field).toBe('api_key');
  });

  test('an unusable X-Request-Id is replaced by a fresh one', async () => {
    const res = await gateway().get('/healthz').set('X-Request-Id', 'bad id with spaces');
    expect(res.headers['x-request-id']).toMatch(/^req_[0-9a-f]{24}$/);
  });

  test('a 2 MB body is 413 body_too_large in the envelope, at the gateway and at the service', async () => {
    const big = JSON.stringify({ label: 'x'.repeat(2_000_000) });
    const { api_key } = await newPrincipal();
    const viaGateway = await gateway().post('/v1/api-keys').set(bearer(api_key)).set('Content-Type', 'application/json').send(big);
    expect(expectError(viaGateway, 413, 'body_too_large').limit).toBe(1_000_000);
    const direct = await identity().post('/v1/api-keys').set(bearer(api_key)).set('Content-Type', 'application/json').send(big);
    expectError(direct, 413, 'body_too_large');
  });

  test('a body just under 1 MB is accepted (the limit is the spec\'s, not lower)', async () => {
    const { api_key } = await newPrincipal();
    const res = await gateway().post('/v1/api-keys').set(bearer(api_key)).send({ label: 'ok', pad: 'x'.repeat(990_000) });
    expect(res.status).toBe(201);
  });

  test('malformed JSON is 400 invalid_value naming the body', async () => {
    const res = await gateway().post('/v1/tokens').set('Content-Type', 'application/json').send('{"api_key":');
    expect(expectError(res, 400, 'invalid_value').field).toBe('body');
  });

  test('every /internal path is 404 at the gateway, even with the bootstrap secret', async () => {
    for (const path of ['/internal/selftest/error', '/internal/principals', '/internal']) {
      const res = await gateway().post(path).set(bearer(stack().bootstrap_secret)).send({});
      expectError(res, 404, 'not_found');
    }
  });

  test('/internal/selftest/error on the service port is a 500 envelope whose request_id matches the header and the log', async () => {
    const res = await identity().post('/internal/selftest/error').set(bearer(stack().bootstrap_secret));
    const err = expectError(res, 500, 'internal_error');
    expect(err.message).not.toMatch(/selftest|stack|Error:/);
    const log = readFileSync(stack().services.identity.log, 'utf8');
    const line = log.split('\n').find((l) => l.includes(String(err.request_id)) && l.includes('unhandled error'));
    expect(line).toBeDefined();
    const logged = JSON.parse(line!);
    expect(logged).toMatchObject({
      level: 'error', service: 'identity', request_id: err.request_id, method: 'POST', path: '/internal/selftest/error',
      err: { name: 'Error', message: 'selftest: a deliberate unhandled error' },
    });
    // The stack says where it was thrown: the route's own file.
    expect(logged.err.stack).toMatch(/^Error: selftest: a deliberate unhandled error\n\s+at .*services\/identity\/src\/routes\/internal\.ts:\d+/);
  });

  test('between identity and the control plane, no internal routes but the spec\'s: the others are gone (404 with the bootstrap secret)', async () => {
    const cp = () => request(stack().services['control-plane'].url);
    const gone: Array<[() => ReturnType<typeof identity>, 'get' | 'post' | 'patch', string]> = [
      [identity, 'patch', '/internal/principals/p_x'], [identity, 'post', '/internal/principals/p_x/terms'], [identity, 'post', '/internal/mail/invitation'],
      [cp, 'post', '/internal/orgs/reserve'], [cp, 'post', '/internal/orgs/release'], [cp, 'post', '/internal/accounts/leave'],
      [cp, 'post', '/internal/agents'], [cp, 'get', '/internal/agents/p_x/grants'], [cp, 'post', '/internal/accounts/onboard'], [cp, 'post', '/internal/device/catalogs'],
    ];
    for (const [service, method, path] of gone) expect([path, (await service()[method](path).set(bearer(stack().bootstrap_secret)).send({})).status]).toEqual([path, 404]);
    // The spec's stand: a principal made, its key revoked, the principal suspended.
    const made = await identity().post('/internal/principals').set(bearer(stack().bootstrap_secret)).send({ kind: 'agent', label: 'spec' });
    expect(made.status).toBe(201);
    expect((await identity().post(`/internal/api-keys/${made.body.key_id}/revoke`).set(bearer(stack().bootstrap_secret)).send({})).body).toMatchObject({ key_id: made.body.key_id, revoked: true, already_revoked: false });
    expect((await identity().post(`/internal/principals/${made.body.principal_id}/suspend`).set(bearer(stack().bootstrap_secret)).send({})).body.status).toBe('suspended');
  });

  test('internal routes refuse a missing or wrong bootstrap secret', async () => {
    expectError(await identity().post('/internal/principals').send({}), 401, 'unauthorized');
    expectError(await identity().post('/internal/principals').set(bearer('x'.repeat(40))).send({}), 401, 'unauthorized');
  });

  test('a control-plane route not built yet asks for a credential first, as a built one does, then answers 501 in the envelope', async () => {
    const { api_key } = await newPrincipal();
    for (const [method, path] of [['get', '/v1/indexes/idx_1'], ['post', '/v1/query'], ['get', '/v1/warehouses']] as const) {
      const res = await gateway()[method](path).send({});
      expectError(res, 401, 'unauthorized');
      expect(res.headers['www-authenticate']).toBe('Bearer');
    }
    expectError(await gateway().get('/v1/indexes/idx_1').set(bearer(api_key)), 501, 'not_implemented');
    expectError(await gateway().post('/v1/query').set(bearer(api_key)).send({}), 400, 'missing_field');
  });

  test('the OAuth revocation endpoint reaches identity: 200 {} to anyone', async () => {
    const res = await gateway().post('/oauth/revoke').send({ token: 'x' });
    expect([res.status, res.body]).toEqual([200, {}]);
  });
});
