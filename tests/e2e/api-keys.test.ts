import { SignJWT, generateKeyPair, decodeProtectedHeader } from 'jose';
import { bearer, db, expectError, gateway, newPrincipal, stack } from './helpers';

describe('API keys', () => {
  test('POST /v1/api-keys shows a new key once; GET lists keys by id and never a secret', async () => {
    const p = await newPrincipal();
    const created = await gateway().post('/v1/api-keys').set(bearer(p.api_key)).send({ label: 'ci runner' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ label: 'ci runner', status: 'active', principal_id: p.principal_id, revoked_at: null });
    expect(created.body.api_key).toMatch(new RegExp(`^al_live_${created.body.key_id}_[A-Za-z0-9]{43}$`));
    const secret = created.body.api_key.split('_').pop();

    const list = await gateway().get('/v1/api-keys').set(bearer(created.body.api_key));
    expect(list.status).toBe(200);
    expect(list.body.count).toBe(2);
    expect(list.body.keys.map((k: { key_id: string }) => k.key_id).sort()).toEqual([p.key_id, created.body.key_id].sort());
    expect(list.text).not.toContain(secret);
    expect(list.text).not.toContain(p.api_key);
    for (const k of list.body.keys) expect(k).not.toHaveProperty('api_key');

    const pool = db();
    try {
      const { rows } = await pool.query(`SELECT secret_hash FROM api_keys WHERE key_id = $1`, [created.body.key_id]);
      expect(rows[0].secret_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(rows[0].secret_hash).not.toContain(secret);
    } finally {
      await pool.end();
    }
  });

  test('a principal sees only its own keys', async () => {
    const a = await newPrincipal();
    const b = await newPrincipal();
    const list = await gateway().get('/v1/api-keys').set(bearer(b.api_key));
    expect(list.body.keys.map((k: { key_id: string }) => k.key_id)).toEqual([b.key_id]);
    expectError(await gateway().delete(`/v1/api-keys/${a.key_id}`).set(bearer(b.api_key)), 404, 'api_key_not_found');
    expect((await gateway().get('/v1/api-keys').set(bearer(a.api_key))).status).toBe(200);
  });

  test('a label is required', async () => {
    const p = await newPrincipal();
    expect(expectError(await gateway().post('/v1/api-keys').set(bearer(p.api_key)).send({}), 400, 'missing_field').field).toBe('label');
    expect(expectError(await gateway().post('/v1/api-keys').set(bearer(p.api_key)).send({ label: '  ' }), 400, 'invalid_value').field).toBe('label');
  });

  test('DELETE revokes; the key is refused on the very next request, as are tokens minted from it', async () => {
    const p = await newPrincipal();
    const second = (await gateway().post('/v1/api-keys').set(bearer(p.api_key)).send({ label: 'doomed' })).body;
    const token = (await gateway().post('/v1/tokens').send({ api_key: second.api_key })).body.access_token;
    expect((await gateway().get('/v1/api-keys').set(bearer(second.api_key))).status).toBe(200);
    expect((await gateway().get('/v1/api-keys').set(bearer(token))).status).toBe(200);

    const del = await gateway().delete(`/v1/api-keys/${second.key_id}`).set(bearer(p.api_key));
    expect(del.status).toBe(200);
    expect(del.body).toMatchObject({ key_id: second.key_id, status: 'revoked', revoked: true, already_revoked: false, revoked_at: expect.any(String) });

    expectError(await gateway().get('/v1/api-keys').set(bearer(second.api_key)), 401, 'api_key_revoked');
    expectError(await gateway().get('/v1/api-keys').set(bearer(token)), 401, 'api_key_revoked');
    expect((await gateway().get('/v1/api-keys').set(bearer(p.api_key))).status).toBe(200);

    const again = await gateway().delete(`/v1/api-keys/${second.key_id}`).set(bearer(p.api_key));
    expect(again.body).toMatchObject({ revoked: true, already_revoked: true, revoked_at: del.body.revoked_at });
  });

  test('an unknown key id is 404 api_key_not_found', async () => {
    const p = await newPrincipal();
    expectError(await gateway().delete('/v1/api-keys/abcdefghijklmnop').set(bearer(p.api_key)), 404, 'api_key_not_found');
  });

  test('create and revoke are audited with actor, target and request id', async () => {
    const p = await newPrincipal();
    const created = await gateway().post('/v1/api-keys').set(bearer(p.api_key)).send({ label: 'audited' });
    const revoked = await gateway().delete(`/v1/api-keys/${created.body.key_id}`).set(bearer(p.api_key));
    const pool = db();
    try {
      const { rows } = await pool.query(
        `SELECT action, actor_id, actor_kind, target_type, target_id, request_id FROM audit_events WHERE target_id = $1 ORDER BY id`,
        [created.body.key_id],
      );
      expect(rows).toEqual([
        { action: 'api_key.create', actor_id: p.principal_id, actor_kind: 'human', target_type: 'api_key', target_id: created.body.key_id, request_id: created.headers['x-request-id'] },
        { action: 'api_key.revoke', actor_id: p.principal_id, actor_kind: 'human', target_type: 'api_key', target_id: created.body.key_id, request_id: revoked.headers['x-request-id'] },
      ]);
    } finally {
      await pool.end();
    }
  });
});

describe('authentication refusals on a control-plane route', () => {
  test('no credential is 401 unauthorized with WWW-Authenticate', async () => {
    const res = await gateway().get('/v1/api-keys');
    expectError(res, 401, 'unauthorized');
    expect(res.headers['www-authenticate']).toMatch(/^Bearer/);
  });

  test('a credential of another kind (not an API key or Floe token) is 401 unauthorized', async () => {
    for (const cred of ['t-0b9a3d6e-secret', 'send_key_abc', 'Basic']) {
      expectError(await gateway().get('/v1/api-keys').set(bearer(cred)), 401, 'unauthorized');
    }
    expectError(await gateway().get('/v1/api-keys').set('Authorization', 'Basic dXNlcjpwYXNz'), 401, 'unauthorized');
  });

  test('a token signed by another key under a published kid is refused', async () => {
    const p = await newPrincipal();
    const real = (await gateway().post('/v1/tokens').send({ api_key: p.api_key })).body.access_token;
    const { kid } = decodeProtectedHeader(real);
    const { privateKey } = await generateKeyPair('RS256');
    const base = stack().base_url;
    const forged = await new SignJWT({ kind: 'human' }).setProtectedHeader({ alg: 'RS256', kid })
      .setIssuer(base).setAudience(base).setSubject(p.principal_id).setIssuedAt().setExpirationTime('5m').sign(privateKey);
    expectError(await gateway().get('/v1/api-keys').set(bearer(forged)), 401, 'unauthorized');
  });

  test('a tampered token is refused', async () => {
    const p = await newPrincipal();
    const real: string = (await gateway().post('/v1/tokens').send({ api_key: p.api_key })).body.access_token;
    const [h, payload, sig] = real.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
    const tampered = [h, Buffer.from(JSON.stringify({ ...claims, sub: 'p_someoneelse' })).toString('base64url'), sig].join('.');
    expectError(await gateway().get('/v1/api-keys').set(bearer(tampered)), 401, 'unauthorized');
  });
});
