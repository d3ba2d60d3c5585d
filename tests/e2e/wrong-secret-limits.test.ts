import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { createTestWarehouse, removeTestWarehouse, type TestWarehouse } from '../support/warehouse';
import { bearer, expectError, gateway, identity, newPrincipal, stack } from './helpers';

// Spec, Authentication 2 and Limits: ten wrong secrets per key id (API key or
// catalog client) per address per 600 s, then 429 with Retry-After. These
// tests fire the attempts all at once: the limit must hold for concurrent
// attempts, not only for attempts one after another.

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

  test('twenty wrong client secrets at once on identity\'s catalog-token exchange: exactly ten 401 invalid_client and ten 429 rate_limited', async () => {
    const exchange = (secret: string) => identity().post('/internal/catalog-tokens').set(bearer(stack().bootstrap_secret))
      .send({ client_id: wh.rw.clientId, client_secret: secret, ip: '198.51.100.23' });
    const answers = await Promise.all(Array.from({ length: ATTEMPTS }, () => exchange(wrongSecret())));
    const by = byStatus(answers);
    expect(tally(answers)).toEqual({ 401: 10, 429: 10 });
    for (const r of by[401]) expectError(r, 401, 'invalid_client');
    for (const r of by[429]) expect(expectError(r, 429, 'rate_limited').retry_after_seconds).toBe(expectRetryAfter(r));
    expectError(await exchange(wh.rw.clientSecret), 429, 'rate_limited');
    // Another address is unaffected, and a right secret there takes no point.
    const elsewhere = await identity().post('/internal/catalog-tokens').set(bearer(stack().bootstrap_secret))
      .send({ client_id: wh.rw.clientId, client_secret: wh.rw.clientSecret, ip: '198.51.100.24' });
    expect(elsewhere.status).toBe(200);
  });
});
