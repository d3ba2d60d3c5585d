// TrustedIssuers against real HTTP servers standing in for identity providers
// (test-fixtures.ts's TestIssuer): what verifies, each refusal's reason, and
// what is fetched when (never an issuer not configured).
import { SignJWT, exportSPKI, jwtVerify } from 'jose';
import { AUDIENCE, TestIssuer, b64, issuerToken as token, refusal, signingKey, type SigningKey } from './test-fixtures';
import { TrustedIssuers, type WarningLog } from './trusted-issuers';

const signatureReason = (iss: string) => `the access token is not accepted: its signature does not verify against ${iss}'s published keys`;

let idp: TestIssuer;
let key: SigningKey;
const warnings: Array<{ message: string; meta: Record<string, unknown> }> = [];
const logger: WarningLog = { warn: (message, meta) => warnings.push({ message, meta }) };
const verifier = (issuers: TestIssuer[], timings = {}) =>
  new TrustedIssuers(issuers.map((i) => ({ issuer: i.url, audiences: [AUDIENCE] })), { selfIssuer: AUDIENCE, logger, timings: { jwksCooldownMs: 0, ...timings } });

beforeEach(async () => {
  idp = await new TestIssuer().start();
  key = await signingKey();
  await idp.publish(key);
  warnings.length = 0;
});
afterEach(() => idp.stop());

test('a token of a trusted issuer verifies: its claims, after one discovery and one key set fetch; a second use fetches nothing', async () => {
  const v = verifier([idp]);
  const t = await token(key, idp.url);
  expect(v.issuerOf(t)).toBe(idp.url);
  expect(await v.verify(t, idp.url)).toMatchObject({ iss: idp.url, sub: 'subject-1', aud: AUDIENCE, email: 'ada@example.com' });
  expect(await v.verify(await token(key, idp.url, { sub: 'subject-2' }), idp.url)).toMatchObject({ sub: 'subject-2' });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration', '/jwks']);
});

test('refusals say why: wrong audience, expired, a subject missing', async () => {
  const v = verifier([idp]);
  expect(await refusal(v.verify(await token(key, idp.url, { aud: 'someone-else' }), idp.url))).toEqual({
    status: 401, code: 'unauthorized', challenge: 'Bearer error="invalid_token"',
    message: `the access token is not accepted: its audience is not one this deployment accepts for ${idp.url}`,
  });
  const expired = await token(key, idp.url, { exp: Math.floor(Date.now() / 1000) - 120 });
  expect(await refusal(v.verify(expired, idp.url))).toMatchObject({ status: 401, code: 'unauthorized', message: 'the access token has expired' });
  const noSubject = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: key.kid }).setIssuer(idp.url).setAudience(AUDIENCE)
    .setExpirationTime('5m').sign(key.privateKey);
  expect(await refusal(v.verify(noSubject, idp.url))).toMatchObject({ status: 401, message: 'the access token is not accepted: it has no "sub" claim' });
});

test('alg none and HS256 keyed with the issuer\'s public key (key confusion) are refused as bad signatures', async () => {
  const v = verifier([idp]);
  const claims = { iss: idp.url, sub: 'subject-1', aud: AUDIENCE, exp: Math.floor(Date.now() / 1000) + 300 };
  const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  expect(v.issuerOf(none)).toBe(idp.url);
  expect(await refusal(v.verify(none, idp.url))).toMatchObject({ status: 401, code: 'unauthorized', message: signatureReason(idp.url) });

  const pem = await exportSPKI(key.publicKey);
  const confused = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: key.kid }).setIssuer(idp.url).setSubject('subject-1')
    .setAudience(AUDIENCE).setExpirationTime('5m').sign(new TextEncoder().encode(pem));
  // The forgery is a real one: a verifier that let the token pick its algorithm would take it.
  await expect(jwtVerify(confused, new TextEncoder().encode(pem))).resolves.toMatchObject({ payload: { sub: 'subject-1' } });
  expect(await refusal(v.verify(confused, idp.url))).toMatchObject({ status: 401, code: 'unauthorized', message: signatureReason(idp.url) });
});

test('a token signed by another key under the trusted issuer is refused, with the issuer\'s kid or one of its own', async () => {
  const v = verifier([idp]);
  const forger = await signingKey(key.kid);
  expect(await refusal(v.verify(await token(forger, idp.url), idp.url))).toMatchObject({ status: 401, message: signatureReason(idp.url) });
  const stranger = await signingKey();
  expect(await refusal(v.verify(await token(stranger, idp.url), idp.url))).toMatchObject({ status: 401, message: signatureReason(idp.url) });
});

test('an untrusted issuer is not routed here, and is never fetched', async () => {
  const elsewhere = await new TestIssuer().start();
  try {
    const otherKey = await signingKey();
    await elsewhere.publish(otherKey);
    const v = verifier([idp]);
    const t = await token(otherKey, elsewhere.url);
    expect(v.issuerOf(t)).toBeNull();
    expect(await refusal(v.verify(t, elsewhere.url))).toMatchObject({ status: 401, code: 'unauthorized', message: 'the access token is not valid here' });
    expect(v.issuerOf('not.a.jwt')).toBeNull();
    expect(elsewhere.requests).toEqual([]);
    expect(idp.requests).toEqual([]);
  } finally {
    await elsewhere.stop();
  }
});

test('Floe\'s own issuer is never an outside one, even when configured as trusted', async () => {
  const v = new TrustedIssuers([{ issuer: idp.url, audiences: [AUDIENCE] }], { selfIssuer: idp.url, logger });
  expect(v.issuerOf(await token(key, idp.url))).toBeNull();
});

test('a key rotated at the issuer: a token with the new kid verifies once the issuer publishes it', async () => {
  const v = verifier([idp]);
  expect(await v.verify(await token(key, idp.url), idp.url)).toMatchObject({ sub: 'subject-1' });
  const next = await signingKey();
  await idp.publish(next);
  expect(await v.verify(await token(next, idp.url, { sub: 'after-rotation' }), idp.url)).toMatchObject({ sub: 'after-rotation' });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration', '/jwks', '/jwks']);
});

test('an unknown kid refetches the key set at most once per cooldown', async () => {
  const v = verifier([idp], { jwksCooldownMs: 60_000 });
  await v.verify(await token(key, idp.url), idp.url);
  for (let i = 0; i < 3; i++) expect(await refusal(v.verify(await token(await signingKey(), idp.url), idp.url))).toMatchObject({ message: signatureReason(idp.url) });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration', '/jwks']);
});

test('discovery naming another issuer: refused as keys that could not be fetched, logged, and not asked again within the quiet time', async () => {
  idp.claimedIssuer = 'https://impostor.example';
  const v = verifier([idp], { retryAfterFailureMs: 60_000 });
  const unavailable = `the signing keys of ${idp.url} could not be fetched, so its tokens cannot be checked now; try again in a minute`;
  expect(await refusal(v.verify(await token(key, idp.url), idp.url))).toEqual({ status: 401, code: 'unauthorized', message: unavailable, challenge: 'Bearer error="invalid_token"' });
  expect(await refusal(v.verify(await token(key, idp.url), idp.url))).toMatchObject({ message: unavailable });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration']);
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatchObject({ message: 'trusted issuer discovery fetch failed', meta: { issuer: idp.url } });
});

test('an issuer that fails is asked again after the quiet time, and its tokens verify once it answers', async () => {
  idp.failWith = 503;
  const v = verifier([idp], { retryAfterFailureMs: 200 });
  expect(await refusal(v.verify(await token(key, idp.url), idp.url))).toMatchObject({ status: 401, message: expect.stringMatching(/could not be fetched/) });
  idp.failWith = null;
  expect(await refusal(v.verify(await token(key, idp.url), idp.url))).toMatchObject({ message: expect.stringMatching(/could not be fetched/) });
  await new Promise((r) => setTimeout(r, 250));
  expect(await v.verify(await token(key, idp.url), idp.url)).toMatchObject({ sub: 'subject-1' });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration', '/.well-known/openid-configuration', '/jwks']);
});

test('a key set that cannot be fetched: refused as unavailable and logged; keys already held keep serving', async () => {
  const v = verifier([idp], { retryAfterFailureMs: 60_000, jwksMaxAgeMs: 60_000 });
  await v.verify(await token(key, idp.url), idp.url);
  idp.failWith = 500;
  // A new kid makes jose ask again; the failure starts the quiet time.
  expect(await refusal(v.verify(await token(await signingKey(), idp.url), idp.url))).toMatchObject({ message: expect.stringMatching(/could not be fetched/) });
  expect(warnings[0]).toMatchObject({ message: 'trusted issuer key set fetch failed', meta: { issuer: idp.url } });
  expect(await v.verify(await token(key, idp.url, { sub: 'still-fine' }), idp.url)).toMatchObject({ sub: 'still-fine' });
  expect(await refusal(v.verify(await token(await signingKey(), idp.url), idp.url))).toMatchObject({ message: signatureReason(idp.url) });
  expect(idp.requests).toEqual(['/.well-known/openid-configuration', '/jwks', '/jwks']);
});
