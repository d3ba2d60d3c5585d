import { createRemoteJWKSet, decodeJwt, errors, jwtVerify } from 'jose';
import { stack } from './helpers';
import { devIssuer, devSignInClient, devSubjectOf, mintDevToken, signInAsDevClient } from '../support/dev-identity';

// The stack's development identity provider (infra/identity-provider), as the
// tests that sign people in with it rely on: its discovery document, an
// authorization-code sign-in by a real OpenID Connect client (openid-client,
// as Floe's sign-in client is one) through its own login and consent forms,
// the claims the ID token carries, and the tokens it mints without a sign-in.

let counter = 0;
const address = (tag = '') => `Dev.Person${++counter}${tag}.${process.pid}@Example.com`;

/** A sign-in as `email` by an OpenID Connect client of the provider's own: the ID token's claims. */
const signIn = async (email: string) => (await signInAsDevClient(email)).claims;

test('the stack records the issuer, which serves its discovery document and JWKS', async () => {
  expect(new URL(devIssuer()).port).toBe(new URL(stack().services['identity-provider'].url).port);
  const res = await fetch(`${devIssuer()}/.well-known/openid-configuration`);
  expect(res.status).toBe(200);
  const doc = (await res.json()) as Record<string, unknown>;
  expect(doc).toMatchObject({
    issuer: devIssuer(),
    authorization_endpoint: expect.stringMatching(/^http:\/\//),
    token_endpoint: expect.any(String),
    jwks_uri: expect.any(String),
    scopes_supported: expect.arrayContaining(['openid', 'email', 'profile']),
    code_challenge_methods_supported: ['S256'],
    id_token_signing_alg_values_supported: ['RS256'],
  });
  const jwks = (await (await fetch(doc.jwks_uri as string)).json()) as { keys: Array<Record<string, unknown>> };
  expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS256', use: 'sig', kid: expect.any(String) })]);
  expect(jwks.keys[0]).not.toHaveProperty('d');
});

test('a sign-in at its login and consent forms gives an ID token with the address (lower-cased), verified, and the subject devSubjectOf gives', async () => {
  const email = address();
  const claims = await signIn(email);
  expect(claims).toMatchObject({
    iss: devIssuer(), aud: devSignInClient().clientId, sub: devSubjectOf(email),
    email: email.toLowerCase(), email_verified: true, name: email.toLowerCase().split('@')[0],
  });
  // The same address signs in as the same subject, whatever its case.
  expect((await signIn(email.toUpperCase())).sub).toBe(claims.sub);
});

test('an address with +unverified in its local part signs in unverified', async () => {
  const email = address('+unverified');
  const claims = await signIn(email);
  expect(claims).toMatchObject({ sub: devSubjectOf(email), email: email.toLowerCase(), email_verified: false });
});

describe('minted tokens (POST /dev/tokens)', () => {
  const keys = () => createRemoteJWKSet(new URL(`${devIssuer()}/jwks`));

  test('verify against the provider\'s JWKS, with its issuer, the subject, the stack\'s audience by default, and the e-mail given', async () => {
    const token = await mintDevToken({ sub: 'dev-minted-1', email: 'minted@example.com' });
    const { payload, protectedHeader } = await jwtVerify(token, keys(), { issuer: devIssuer(), audience: stack().base_url, algorithms: ['RS256'] });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', kid: expect.any(String) });
    expect(payload).toMatchObject({ sub: 'dev-minted-1', email: 'minted@example.com' });
    expect(payload.exp! - payload.iat!).toBe(900);
  });

  test('name the audiences asked for', async () => {
    const token = await mintDevToken({ sub: 'dev-minted-2', aud: ['https://one.example', 'https://two.example'], expiresIn: 60 });
    const { payload } = await jwtVerify(token, keys(), { issuer: devIssuer(), audience: 'https://two.example' });
    expect(payload).toMatchObject({ aud: ['https://one.example', 'https://two.example'], sub: 'dev-minted-2' });
    expect(payload).not.toHaveProperty('email');
    expect(payload.exp! - payload.iat!).toBe(60);
  });

  test('a negative expires_in gives a token already expired', async () => {
    const token = await mintDevToken({ sub: 'dev-minted-3', expiresIn: -60 });
    expect(decodeJwt(token).exp).toBeLessThan(Date.now() / 1000 - 30);
    await expect(jwtVerify(token, keys(), { issuer: devIssuer(), audience: stack().base_url })).rejects.toBeInstanceOf(errors.JWTExpired);
  });

  test('a body it cannot mint from is 400 invalid_request', async () => {
    for (const body of [{}, { sub: '' }, { sub: 'x', expires_in: 1.5 }, { sub: 'x', aud: [] }, { sub: 'x', expiresIn: 60 }, 'not an object']) {
      const res = await fetch(`${devIssuer()}/dev/tokens`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      expect([JSON.stringify(body), res.status, await res.json()]).toEqual([JSON.stringify(body), 400, { error: 'invalid_request', error_description: expect.any(String) }]);
    }
  });
});
