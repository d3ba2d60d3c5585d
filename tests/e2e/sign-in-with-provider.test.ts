import { createHash } from 'node:crypto';
import type request from 'supertest';
import { loadConfig } from '@floe/config';
import { authenticatorApp } from '../support/authenticator-app';
import { devSignInClient, devSubjectOf, mintDevToken, signInAsDevClient, signInAtDevProvider } from '../support/dev-identity';
import { postJsonFrom } from '../support/from-address';
import { personWithPassword } from '../support/people';
import { uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, identity, redis, signInGoesStale, sql, stack } from './helpers';

// Sign-in with an OpenID Connect provider, through the gateway, against the
// stack's development identity provider (a real oidc-provider): the start,
// the provider's own login and consent forms (driven over HTTP as a browser
// would), and Floe's callback — a new account without a password, an
// existing account linked by a mailed code, a linked account with a second
// factor, and every refusal on the way. The pages' journey is
// console-sign-in-provider.test.ts.

const PASSWORD = 'a provider-linked passphrase 31';
const address = (prefix: string) => `${prefix}-${uniq()}${uniq()}@example.com`;
const start = (body: Record<string, unknown> = { accept_terms: true }, provider = 'dev') => gateway().post(`/v1/auth/oidc/${provider}/start`).send(body);
const callback = (body: Record<string, unknown>, provider = 'dev') => gateway().post(`/v1/auth/oidc/${provider}/callback`).send(body);
const link = (body: Record<string, unknown>) => gateway().post('/v1/auth/oidc/link').send(body);
/**
 * A POST from a loopback address of this file's own: refused answers count
 * against the login's attempts per caller address, which the rest of the
 * suite spends from 127.0.0.1.
 */
const from = (address: string, path: string, body: Record<string, unknown>) =>
  postJsonFrom(address, `${stack().base_url}${path}`, body) as Promise<unknown> as Promise<request.Response>;
const refusedCallback = (body: Record<string, unknown>) => from('127.0.0.61', '/v1/auth/oidc/dev/callback', body);

/** What the provider sent the browser back with: the callback's body. */
function answerOf(back: URL): { state: string; code: string; iss?: string } {
  const iss = back.searchParams.get('iss');
  return { state: back.searchParams.get('state')!, code: back.searchParams.get('code')!, ...(iss ? { iss } : {}) };
}

/** A sign-in at the provider as `login` (its address, or `address#label` for another account claiming it) up to Floe's callback; its answer. */
async function signIn(login: string, startBody: Record<string, unknown> = { accept_terms: true }) {
  const started = await start(startBody);
  expect(started.status).toBe(200);
  const back = await signInAtDevProvider(started.body.authorization_url, login);
  expect(`${back.origin}${back.pathname}`).toBe(started.body.redirect_uri);
  return callback(answerOf(back));
}

/** The code mailed to link a provider's sign-in, as the stack keeps it for tests. */
async function linkCode(email: string): Promise<string> {
  const res = await identity().get(`/internal/signup-codes/${encodeURIComponent(email)}?purpose=link`).set(bearer(stack().bootstrap_secret));
  expect(res.status).toBe(200);
  return res.body.code as string;
}

describe('an address new to Floe', () => {
  test('makes an account without a password, with its organisation and lake; the next sign-in is the same person; its provider tokens act as them', async () => {
    const email = address('sso-new');
    const started = await start();
    expect(started.status).toBe(200);
    expect(started.headers['cache-control']).toBe('no-store');
    expect(started.body).toMatchObject({ provider: { id: 'dev', name: 'the development identity provider' }, redirect_uri: `${new URL(stack().base_url).origin}/app/login`, expires_in: 600 });
    const asked = new URL(started.body.authorization_url);
    expect(asked.origin).toBe(stack().identity_provider_url);
    expect(Object.fromEntries(asked.searchParams)).toMatchObject({ response_type: 'code', scope: 'openid email profile', code_challenge_method: 'S256', state: started.body.state });
    expect(asked.searchParams.get('nonce')).toMatch(/^.{16,}$/);

    const first = await callback(answerOf(await signInAtDevProvider(started.body.authorization_url, email)));
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toMatchObject({
      token_type: 'Bearer', principal: { kind: 'human', email }, account_created: true,
      signed_in_with: { provider: 'dev', issuer: stack().identity_provider_url, email },
      warehouse: { name: 'lake', created: true }, organization: { role: 'admin' },
    });
    const [person] = await sql('SELECT password_hash, email_verified_at, terms_version FROM principals WHERE id = $1', [first.body.principal_id]);
    expect(person.password_hash).toBeNull();
    expect(person.email_verified_at).not.toBeNull();
    expect(person.terms_version).not.toBeNull();

    // Signing in again is the same person.
    const again = await signIn(email);
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ principal_id: first.body.principal_id, account_created: false });
    expect(again.body.warehouse).toBeUndefined();

    const listed = await gateway().get('/v1/auth/identities').set(bearer(first.body.access_token));
    expect(listed.status).toBe(200);
    expect(listed.body.identities).toEqual([expect.objectContaining({ provider: 'dev', issuer: stack().identity_provider_url, email })]);

    // No password: the password login refuses as for any wrong one; reauthentication and unlinking the only way in ask for one first.
    expectError(await gateway().post('/v1/auth/login').send({ email, password: PASSWORD }), 401, 'invalid_login');
    expectError(await gateway().post('/v1/auth/reauth').set(bearer(first.body.access_token)).send({ password: PASSWORD }), 409, 'password_required');
    const only = listed.body.identities[0].identity_id;
    expect(expectError(await gateway().delete(`/v1/auth/identities/${only}`).set(bearer(first.body.access_token)), 409, 'password_required').remedy).toBe('POST /v1/auth/password/reset/start');

    // A stale sign-in reauthenticates with the provider, which must sign the linked account in afresh.
    await signInGoesStale(first.body.session_id);
    expectError(await gateway().delete(`/v1/auth/identities/${only}`).set(bearer(first.body.access_token)), 401, 'reauth_required');
    const reauth = async (login: string) => {
      const asked = await gateway().post('/v1/auth/reauth/oidc/dev').set(bearer(first.body.access_token)).send();
      expect(asked.status).toBe(200);
      expect(new URL(asked.body.authorization_url).searchParams.get('max_age')).toBe('0');
      return callback(answerOf(await signInAtDevProvider(asked.body.authorization_url, login)));
    };
    expectError(await reauth(`${email}#another-account`), 409, 'identity_conflict');
    const again2 = await reauth(email);
    expect(again2.status).toBe(200);
    expect(again2.body).toMatchObject({ reauthenticated: true, session_id: first.body.session_id });
    expectError(await gateway().delete(`/v1/auth/identities/${only}`).set(bearer(first.body.access_token)), 409, 'password_required');

    // A token the provider mints for this subject is a bearer credential of this person (a trusted issuer).
    const token = await mintDevToken({ sub: devSubjectOf(email) });
    const catalogs = await gateway().get('/v1/warehouses').set(bearer(token));
    expect(catalogs.status).toBe(200);
    expect(catalogs.body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id)).toEqual([first.body.warehouse.warehouse_id]);
  });

  test('without the Terms accepted at the start is 400 terms_required, and makes nothing', async () => {
    const email = address('sso-terms');
    const res = await signIn(email, {});
    expect(expectError(res, 400, 'terms_required').terms).toMatchObject({ version: expect.any(String) });
    expect(await sql('SELECT id FROM principals WHERE email = $1', [email])).toEqual([]);
  });

  test('an address the provider does not vouch for is 403 email_not_verified; a throwaway-mail address is 400 disposable_email', async () => {
    expectError(await signIn(`sso+unverified-${uniq()}@example.com`), 403, 'email_not_verified');
    expectError(await signIn(`sso-${uniq()}@mailinator.com`), 400, 'disposable_email');
  });
});

describe('refusals of the start and the callback', () => {
  test('an unknown provider is 404 not_found; a page of another origin is 403 origin_not_allowed', async () => {
    expectError(await start({}, 'nowhere'), 404, 'not_found');
    expectError(await callback({ state: 'x', code: 'y' }, 'nowhere'), 404, 'not_found');
    const foreign = await gateway().post('/v1/auth/oidc/dev/start').set('Origin', 'https://evil.example').send({});
    expect(expectError(foreign, 403, 'origin_not_allowed').allowed_origins).toContain(new URL(stack().base_url).origin);
    expectError(await gateway().post('/v1/auth/oidc/dev/start').send({ accept_terms: 'yes' }), 400, 'invalid_value');
  });

  test('a state not started here, or spent, is 400 invalid_state; a wrong code is 401 invalid_google_code; a nonce that does not match is 401 invalid_id_token', async () => {
    expectError(await refusedCallback({ state: 'never-started', code: 'x' }), 400, 'invalid_state');
    const started = await start();
    const answer = answerOf(await signInAtDevProvider(started.body.authorization_url, address('sso-refusals')));
    expectError(await refusedCallback({ ...answer, code: 'not-the-code' }), 401, 'invalid_google_code');
    // The wrong code spent the state: the right one cannot follow.
    expectError(await refusedCallback(answer), 400, 'invalid_state');

    // An ID token minted for another start: the state's nonce no longer matches the one the provider signed.
    const other = await start();
    const back = answerOf(await signInAtDevProvider(other.body.authorization_url, address('sso-nonce')));
    const r = redis();
    try {
      const key = `${stack().redis_prefix}oidc:state:${createHash('sha256').update(back.state).digest('hex')}`;
      const pending = JSON.parse((await r.get(key))!);
      await r.set(key, JSON.stringify({ ...pending, nonce: 'a-nonce-of-another-start' }), 'EX', 600);
    } finally {
      r.disconnect();
    }
    expectError(await refusedCallback(back), 401, 'invalid_id_token');
  });
});

test('refused answers count against the login\'s attempts per caller address; answers the provider vouched for do not', async () => {
  const caller = '127.0.0.62';
  const allowed = loadConfig().loginAttemptsPerHour;
  for (let i = 0; i < allowed - 1; i++) expect((await from(caller, '/v1/auth/oidc/dev/callback', { state: `not-started-${i}`, code: 'x' })).status).toBe(400);
  // A sign-in the provider vouched for takes no attempt: one is left after it.
  const started = await start();
  const back = answerOf(await signInAtDevProvider(started.body.authorization_url, address('sso-budget')));
  expect((await from(caller, '/v1/auth/oidc/dev/callback', back)).status).toBe(200);
  expect((await from(caller, '/v1/auth/oidc/dev/callback', { state: 'the-last-one', code: 'x' })).status).toBe(400);
  const spent = await from(caller, '/v1/auth/oidc/dev/callback', { state: 'one-too-many', code: 'x' });
  expect(expectError(spent, 429, 'rate_limited').retry_after_seconds).toBeGreaterThan(0);
});

describe('an ID token the provider gave the page', () => {
  const withIdToken = (body: Record<string, unknown>) => from('127.0.0.61', '/v1/auth/oidc/dev/id-token', body);

  test('signs in once with its nonce; replayed, for another audience, expired, tampered or with another nonce it is 401 invalid_google_token', async () => {
    const email = address('sso-id-token');
    const { idToken, nonce } = await signInAsDevClient(email);
    expectError(await withIdToken({ id_token: idToken, nonce: 'another-nonce', accept_terms: true }), 401, 'invalid_google_token');
    const first = await withIdToken({ id_token: idToken, nonce, accept_terms: true });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toMatchObject({ account_created: true, principal: { email }, signed_in_with: { provider: 'dev', email } });
    expect(expectError(await withIdToken({ id_token: idToken, nonce }), 401, 'invalid_google_token').message).toMatch(/used already/);

    // Tokens of the provider's issuer that are not ID tokens for Floe's client, or no longer hold.
    const sub = devSubjectOf(email);
    expect(expectError(await withIdToken({ id_token: await mintDevToken({ sub, email }) }), 401, 'invalid_google_token').message).toMatch(/aud/);
    const expired = await mintDevToken({ sub, email, aud: devSignInClient().clientId, expiresIn: -120 });
    expect(expectError(await withIdToken({ id_token: expired }), 401, 'invalid_google_token').message).toMatch(/expired/);
    const [header, payload, signature] = (await signInAsDevClient(email)).idToken.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64url').toString()), email: 'someone.else@example.com' })).toString('base64url');
    expectError(await withIdToken({ id_token: `${header}.${forged}.${signature}` }), 401, 'invalid_google_token');
    expectError(await gateway().post('/v1/auth/oidc/nowhere/id-token').send({ id_token: idToken }), 404, 'not_found');
  });
});

describe('an existing account', () => {
  test('is linked only by the code mailed to it: wrong codes counted, twenty uses at once link once, and a second factor still asks for its step', async () => {
    const person = await personWithPassword('sso-link', PASSWORD);
    const asked = await signIn(person.email);
    const refusal = expectError(asked, 401, 'email_code_required');
    expect(asked.headers['cache-control']).toBe('no-store');
    expect(refusal).toMatchObject({ email: person.email, expires_in: 600, provider: 'dev', next: 'POST /v1/auth/oidc/link {link_token, code}' });
    const linkToken = refusal.link_token as string;
    const code = await linkCode(person.email);

    expectError(await link({ link_token: 'lnk_unknown', code }), 404, 'no_pending_code');
    const wrong = code === '000000' ? '111111' : '000000';
    expect(expectError(await link({ link_token: linkToken, code: wrong }), 401, 'invalid_code').attempts_left).toBe(4);
    const tries = await Promise.all(Array.from({ length: 20 }, () => link({ link_token: linkToken, code })));
    const statuses = tries.map((t) => t.status).sort();
    expect(statuses).toEqual([200, ...Array(19).fill(404)]);
    for (const t of tries.filter((x) => x.status === 404)) expect(t.body.error.code).toBe('no_pending_code');
    const linked = tries.find((t) => t.status === 200)!;
    expect(linked.body).toMatchObject({ principal_id: person.principalId, linked: true, signed_in_with: { provider: 'dev', email: person.email } });
    expect(await sql('SELECT subject FROM external_identities WHERE principal_id = $1', [person.principalId])).toEqual([{ subject: devSubjectOf(person.email) }]);

    // Linked: the provider signs in at once; the password still works too.
    expect((await signIn(person.email)).body).toMatchObject({ principal_id: person.principalId, account_created: false });
    expect((await gateway().post('/v1/auth/login').send({ email: person.email, password: PASSWORD })).status).toBe(200);

    // Reauthentication with a provider the account is not linked to is refused before leaving.
    const unlinked = await personWithPassword('sso-unlinked', PASSWORD);
    expectError(await gateway().post('/v1/auth/reauth/oidc/dev').set(bearer(unlinked.access)).send(), 404, 'not_found');

    // Another provider account that claims the same address cannot take the linked account.
    expectError(await signIn(`${person.email}#second`), 409, 'identity_conflict');

    // With an authenticator app on, the provider's sign-in is the first step only.
    const started = await gateway().post('/v1/auth/mfa/totp/start').set(bearer(person.access)).send({});
    const app = authenticatorApp(started.body.secret);
    expect((await gateway().post('/v1/auth/mfa/totp/confirm').set(bearer(person.access)).send({ code: await app() })).status).toBe(200);
    const step = expectError(await signIn(person.email), 401, 'mfa_required');
    expect(step.message).toMatch(/^the provider signed you in;/);
    const done = await gateway().post('/v1/auth/login/mfa').send({ mfa_token: step.mfa_token, code: await app() });
    expect(done.status).toBe(200);
    expect(done.body.principal_id).toBe(person.principalId);
  });

  test('a link code past its ten minutes is 410 code_expired', async () => {
    const person = await personWithPassword('sso-expired', PASSWORD);
    const linkToken = expectError(await signIn(person.email), 401, 'email_code_required').link_token;
    const code = await linkCode(person.email);
    await sql(`UPDATE email_codes SET expires_at = now() - interval '1 second' WHERE email = $1 AND purpose = 'link'`, [person.email]);
    expectError(await link({ link_token: linkToken, code }), 410, 'code_expired');
    expect(await sql('SELECT id FROM external_identities WHERE principal_id = $1', [person.principalId])).toEqual([]);
  });
});
