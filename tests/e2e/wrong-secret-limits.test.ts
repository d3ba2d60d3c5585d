import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { requestFrom } from '../support/from-address';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { bearer, expectError, gateway, identity, newPrincipal, stack } from './helpers';

// Spec, Authentication 2 and Limits: ten wrong secrets per key id (API key or
// catalog client) per address per 600 s, then 429 with Retry-After. The limit
// must hold for attempts fired all at once, not only one after another; and
// "address" is the caller's real one: an X-Forwarded-For the caller writes
// neither moves its attempts onto someone else (locking them out) nor spreads
// them over made-up addresses (escaping the limit). The private stack names
// no FLOE_TRUST_PROXY hop; distinct callers are distinct loopback addresses
// (127.0.0.x) the test binds its sockets to.

const ATTEMPTS = 20;
/** A well-formed API key of a real key id with a wrong, distinct secret each time (a real guesser's attempts). */
const wrongKey = (keyId: string) => `al_live_${keyId}_${randomBytes(32).toString('base64url').replace(/[-_]/g, 'A').slice(0, 43)}`;
const wrongSecret = () => `cs_${randomBytes(24).toString('base64url')}`;

let wh: TestWarehouse;

/**
 * The catalog without the OpenAPI validator: the Iceberg REST document
 * declares no 429 for getToken (200, 400, 401, 5XX), while this service's
 * spec answers the limit with 429 and Retry-After there.
 */
const catalogUnchecked = () => request(stack().catalog_url);

beforeAll(async () => {
  wh = await createTestWarehouse(stack());
}, 60_000);

afterAll(async () => {
  await removeTestWarehouse(wh);
}, 60_000);

function byStatus(responses: request.Response[]): Record<number, request.Response[]> {
  const out: Record<number, request.Response[]> = {};
  for (const r of responses) (out[r.status] ??= []).push(r);
  return out;
}

/** How many answers had each status: a short diff when it fails. */
function tally(responses: request.Response[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const r of responses) out[r.status] = (out[r.status] ?? 0) + 1;
  return out;
}

function expectRetryAfter(res: request.Response): number {
  const seconds = Number(res.headers['retry-after']);
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(600);
  return seconds;
}

describe('concurrent wrong secrets', () => {
  test('twenty wrong API key secrets at once for one key id: exactly ten 401 invalid_api_key and ten 429 rate_limited', async () => {
    const p = await newPrincipal();
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, () => gateway().post('/v1/tokens').send({ api_key: wrongKey(p.key_id) })));
    const by = byStatus(answers);
    expect(tally(answers)).toEqual({ 401: 10, 429: 10 });
    for (const r of by[401]) expectError(r, 401, 'invalid_api_key');
    for (const r of by[429]) expect(expectError(r, 429, 'rate_limited').retry_after_seconds).toBe(expectRetryAfter(r));
    // The right key is refused now too, on the exchange and as a bearer credential.
    expectError(await gateway().post('/v1/tokens').send({ api_key: p.api_key }), 429, 'rate_limited');
    expectError(await gateway().get('/v1/api-keys').set(bearer(p.api_key)), 429, 'rate_limited');
  });

  test('the same, mixed between the token exchange and bearer use on an authenticated route', async () => {
    const p = await newPrincipal();
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, (_, i) => (i % 2
      ? gateway().post('/v1/tokens').send({ api_key: wrongKey(p.key_id) })
      : gateway().get('/v1/api-keys').set(bearer(wrongKey(p.key_id))))));
    expect(tally(answers)).toEqual({ 401: 10, 429: 10 });
  });

  test('a burst of the right key is never refused and takes no wrong-secret point', async () => {
    const p = await newPrincipal();
    const answers = await Promise.all(Array.from({ length: 30 }, () => gateway().get('/v1/api-keys').set(bearer(p.api_key))));
    expect(answers.map((r) => r.status)).toEqual(Array(30).fill(200));
    // All ten wrong attempts are still left.
    const wrong = await Promise.all(Array.from({ length: 10 }, () => gateway().post('/v1/tokens').send({ api_key: wrongKey(p.key_id) })));
    expect(wrong.map((r) => r.status)).toEqual(Array(10).fill(401));
  });

  test('twenty wrong client secrets at once on the catalog\'s POST /v1/oauth/tokens: exactly ten 401 and ten 429 invalid_client', async () => {
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, () => catalogUnchecked().post('/v1/oauth/tokens').type('form')
      .send({ grant_type: 'client_credentials', client_id: wh.ro.clientId, client_secret: wrongSecret() })));
    const by = byStatus(answers);
    expect(tally(answers)).toEqual({ 401: 10, 429: 10 });
    for (const r of by[401]) expect(r.body).toEqual({ error: 'invalid_client', error_description: 'unknown client or wrong secret' });
    for (const r of by[429]) {
      expect(r.body).toEqual({ error: 'invalid_client', error_description: expect.stringContaining('too many wrong secrets') });
      expectRetryAfter(r);
    }
    // The right secret is refused as well until the window ends.
    const right = await catalogUnchecked().post('/v1/oauth/tokens').type('form')
      .send({ grant_type: 'client_credentials', client_id: wh.ro.clientId, client_secret: wh.ro.clientSecret });
    expect(right.status).toBe(429);
  });

  test('the exchange is the catalog\'s alone: identity serves no catalog-token route, even to the bootstrap secret', async () => {
    for (const path of ['/internal/catalog-tokens', '/internal/catalog-tokens/warehouse']) {
      const r = await identity().post(path).set(bearer(stack().bootstrap_secret)).send({ client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret, warehouse_id: wh.id });
      expectError(r, 404, 'not_found');
    }
  });
});

/** An HTTP client whose connections come from one local address. */
function from(localAddress: string) {
  return (url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) => requestFrom(localAddress, url, init);
}

const form = (o: Record<string, string>) => ({
  method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(o).toString(),
});
const json = (o: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(o),
});

describe('forged client addresses (X-Forwarded-For from a caller no deployment names)', () => {
  const exchange = (c: ReturnType<typeof from>, clientId: string, secret: string, xff?: string) => c(`${stack().catalog_url}/v1/oauth/tokens`, {
    ...form({ grant_type: 'client_credentials', client_id: clientId, client_secret: secret }),
    ...(xff ? { headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'X-Forwarded-For': xff } } : {}),
  });

  test('catalog: ten wrong secrets "from" a victim\'s address count against the sender; the victim\'s right secret still works', async () => {
    const attacker = from('127.0.0.2');
    const victim = from('127.0.0.3');
    for (let i = 0; i < 10; i++) expect((await exchange(attacker, wh.rw.clientId, wrongSecret(), '127.0.0.3')).status).toBe(401);
    expect((await exchange(victim, wh.rw.clientId, wh.rw.clientSecret)).status).toBe(200);
    // The sender is the one limited, whatever address it writes next.
    const eleventh = await exchange(attacker, wh.rw.clientId, wh.rw.clientSecret, '192.0.2.99');
    expect(eleventh.status).toBe(429);
    expect(eleventh.body).toEqual({ error: 'invalid_client', error_description: expect.stringContaining('too many wrong secrets') });
  });

  test('catalog: a new X-Forwarded-For on every attempt does not reset the limit: the 11th is 429', async () => {
    const guesser = from('127.0.0.4');
    for (let i = 0; i < 10; i++) expect((await exchange(guesser, wh.ro.clientId, wrongSecret(), `198.51.100.${i + 1}`)).status).toBe(401);
    const eleventh = await exchange(guesser, wh.ro.clientId, wrongSecret(), '198.51.100.200');
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers['retry-after'])).toBeGreaterThan(0);
  });

  const tokens = (c: ReturnType<typeof from>, apiKey: string, headers: Record<string, string> = {}) => c(`${stack().base_url}/v1/tokens`, json({ api_key: apiKey }, headers));

  test('through the gateway: the service sees each caller\'s own address (the gateway\'s proof), never one the caller wrote', async () => {
    const p = await newPrincipal();
    const attacker = from('127.0.0.5');
    const victim = from('127.0.0.6');
    for (let i = 0; i < 10; i++) expect((await tokens(attacker, wrongKey(p.key_id), { 'X-Forwarded-For': '127.0.0.6' })).status).toBe(401);
    // Not locked out: neither the victim's address nor the gateway's own (every caller would share it without the proof).
    expect((await tokens(victim, p.api_key)).status).toBe(200);
    const eleventh = await tokens(attacker, p.api_key, { 'X-Forwarded-For': '203.0.113.50' });
    expect(eleventh.status).toBe(429);
    expect(eleventh.body.error).toMatchObject({ code: 'rate_limited', retry_after_seconds: Number(eleventh.headers['retry-after']) });
  });

  test('through the gateway: a new X-Forwarded-For on every attempt does not reset the limit', async () => {
    const p = await newPrincipal();
    const guesser = from('127.0.0.7');
    for (let i = 0; i < 10; i++) expect((await tokens(guesser, wrongKey(p.key_id), { 'X-Forwarded-For': `198.51.100.${i + 1}` })).status).toBe(401);
    expect((await tokens(guesser, wrongKey(p.key_id), { 'X-Forwarded-For': '198.51.100.111' })).status).toBe(429);
  });

  test('a service called directly, past the gateway: X-Forwarded-For and a forged proof are ignored', async () => {
    const p = await newPrincipal();
    const attacker = from('127.0.0.8');
    const victim = from('127.0.0.9');
    const direct = (c: ReturnType<typeof from>, key: string, xff: string) => c(`${stack().services.identity.url}/v1/tokens`, json({ api_key: key }, {
      'X-Forwarded-For': xff, 'X-Floe-Gateway-Proof': `v1.${Math.floor(Date.now() / 1000)}.${'A'.repeat(43)}`,
    }));
    for (let i = 0; i < 10; i++) expect((await direct(attacker, wrongKey(p.key_id), '127.0.0.9')).status).toBe(401);
    expect((await tokens(victim, p.api_key)).status).toBe(200);
    expect((await direct(attacker, p.api_key, `198.51.100.${Math.floor(Math.random() * 250)}`)).status).toBe(429);
  });
});
