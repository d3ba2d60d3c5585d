import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { bearer, db, expectError, gateway, identity, newPrincipal, redis, stack } from './helpers';

const wrongSecret = (keyId: string) => `al_live_${keyId}_${'A'.repeat(43)}`;

describe('POST /v1/tokens', () => {
  test('exchanges an API key for a 900 s RS256 token that verifies against the published JWKS', async () => {
    const p = await newPrincipal();
    const res = await gateway().post('/v1/tokens').send({ api_key: p.api_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), token_type: 'Bearer', expires_in: 900, principal_id: p.principal_id });
    const base = stack().base_url;
    const jwks = createRemoteJWKSet(new URL(`${base}/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token, jwks, { issuer: base, audience: base, algorithms: ['RS256'] });
    expect(protectedHeader.alg).toBe('RS256');
    expect(protectedHeader.kid).toEqual(expect.any(String));
    expect(payload.sub).toBe(p.principal_id);
    expect(payload.exp! - payload.iat!).toBe(900);
    expect(payload).toMatchObject({ kind: 'human', email: p.email, key_id: p.key_id });
    expect(typeof payload.jti).toBe('string');
  });

  test('the token is accepted by an authenticated route', async () => {
    const p = await newPrincipal();
    const { body } = await gateway().post('/v1/tokens').send({ api_key: p.api_key });
    const res = await gateway().get('/v1/api-keys').set(bearer(body.access_token));
    expect(res.status).toBe(200);
    expect(res.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([p.key_id]);
  });

  test('a missing api_key is 400 missing_field; a non-string is invalid_value', async () => {
    expect(expectError(await gateway().post('/v1/tokens').send({}), 400, 'missing_field').field).toBe('api_key');
    expect(expectError(await gateway().post('/v1/tokens').send({ api_key: 7 }), 400, 'invalid_value').field).toBe('api_key');
  });

  test('a malformed key and a wrong secret are both 401 invalid_api_key with WWW-Authenticate', async () => {
    const p = await newPrincipal();
    for (const api_key of ['not-a-key', 'al_live_nope', wrongSecret(p.key_id)]) {
      const res = await gateway().post('/v1/tokens').send({ api_key });
      expectError(res, 401, 'invalid_api_key');
      expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
    }
  });

  test('a revoked key is 401 api_key_revoked', async () => {
    const p = await newPrincipal();
    await identity().post(`/internal/api-keys/${p.key_id}/revoke`).set(bearer(stack().bootstrap_secret)).expect(200);
    expectError(await gateway().post('/v1/tokens').send({ api_key: p.api_key }), 401, 'api_key_revoked');
  });

  test('a suspended principal is 403 principal_suspended, for the exchange and for a token minted before', async () => {
    const p = await newPrincipal();
    const { body } = await gateway().post('/v1/tokens').send({ api_key: p.api_key }).expect(200);
    const s = await identity().post(`/internal/principals/${p.principal_id}/suspend`).set(bearer(stack().bootstrap_secret));
    expect(s.status).toBe(200);
    expect(s.body).toMatchObject({ principal_id: p.principal_id, status: 'suspended', suspended_at: expect.any(String) });
    expectError(await gateway().post('/v1/tokens').send({ api_key: p.api_key }), 403, 'principal_suspended');
    expectError(await gateway().get('/v1/api-keys').set(bearer(body.access_token)), 403, 'principal_suspended');
    expectError(await gateway().get('/v1/api-keys').set(bearer(p.api_key)), 403, 'principal_suspended');
  });

  test('suspending an unknown principal is 404 principal_not_found', async () => {
    const res = await identity().post('/internal/principals/p_nobody/suspend').set(bearer(stack().bootstrap_secret));
    expectError(res, 404, 'principal_not_found');
  });

  test('a deleted account is 401 account_deleted with WWW-Authenticate: Bearer error="invalid_token"', async () => {
    const p = await newPrincipal();
    // Account deletion (DELETE /v1/me) is a later route; mark the row as it will, and bump the
    // credential epoch as every writer of credential standing must.
    const pool = db();
    const r = redis();
    try {
      await pool.query(`UPDATE principals SET status = 'deleted', deleted_at = now() WHERE id = $1`, [p.principal_id]);
      await r.incr(`${stack().redis_prefix}auth:epoch`);
    } finally {
      await pool.end();
      r.disconnect();
    }
    const res = await gateway().post('/v1/tokens').send({ api_key: p.api_key });
    expectError(res, 401, 'account_deleted');
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  });

  test('ten wrong secrets for one key id from one address are 401; the 11th is 429 with Retry-After, whatever its secret', async () => {
    const p = await newPrincipal();
    for (let i = 1; i <= 10; i++) {
      const res = await gateway().post('/v1/tokens').send({ api_key: wrongSecret(p.key_id) });
      expectError(res, 401, 'invalid_api_key');
    }
    const eleventh = await gateway().post('/v1/tokens').send({ api_key: p.api_key });
    const err = expectError(eleventh, 429, 'rate_limited');
    const retryAfter = Number(eleventh.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(600);
    expect(err.retry_after_seconds).toBe(retryAfter);
    // Key use on any route is limited the same way.
    expectError(await gateway().get('/v1/api-keys').set(bearer(p.api_key)), 429, 'rate_limited');
    // Another key id from the same address is unaffected.
    const other = await newPrincipal();
    expect((await gateway().post('/v1/tokens').send({ api_key: other.api_key })).status).toBe(200);
  });

  test('nine wrong secrets then the right one still succeeds', async () => {
    const p = await newPrincipal();
    for (let i = 0; i < 9; i++) expectError(await gateway().post('/v1/tokens').send({ api_key: wrongSecret(p.key_id) }), 401, 'invalid_api_key');
    expect((await gateway().post('/v1/tokens').send({ api_key: p.api_key })).status).toBe(200);
    // The tenth wrong one is still 401, not 429.
    expectError(await gateway().post('/v1/tokens').send({ api_key: wrongSecret(p.key_id) }), 401, 'invalid_api_key');
  });

  test('each token carries the kid of a key in the JWKS', async () => {
    const p = await newPrincipal();
    const { body } = await gateway().post('/v1/tokens').send({ api_key: p.api_key });
    const { kid } = decodeProtectedHeader(body.access_token);
    const jwks = await gateway().get('/jwks.json');
    expect(jwks.body.keys.map((k: { kid: string }) => k.kid)).toContain(kid);
  });
});
