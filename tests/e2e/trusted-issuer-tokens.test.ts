// Tokens from an identity provider the deployment trusts (Authentication 1),
// through the gateway: the stack's development identity provider is a
// trusted issuer, and its tokens act as the person their subject is linked
// to. Every refusal is 401 `unauthorized` saying why, with
// WWW-Authenticate: Bearer error="invalid_token".
import { SignJWT, exportSPKI, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { devIssuer, devSubjectOf, linkAtDevProvider, mintDevToken } from '../support/dev-identity';
import { personWithPassword } from '../support/people';
import { uniq } from './control-plane-helpers';
import { bearer, expectError, gateway, identity, newPrincipal, stack } from './helpers';


/** The refusal's message, after asserting the envelope, the code and the challenge. */
function refused(res: Awaited<ReturnType<ReturnType<typeof gateway>['get']>>): string {
  const err = expectError(res, 401, 'unauthorized');
  expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
  return err.message as string;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
const soon = () => Math.floor(Date.now() / 1000) + 300;
const signatureReason = () => `the access token is not accepted: its signature does not verify against ${devIssuer()}'s published keys`;

/** The provider's published signing key, as anyone can fetch it. */
async function publishedKey(): Promise<JWK> {
  const discovery = await (await fetch(`${devIssuer()}/.well-known/openid-configuration`)).json() as { jwks_uri: string };
  const { keys } = await (await fetch(discovery.jwks_uri)).json() as { keys: JWK[] };
  return keys.find((k) => k.kty === 'RSA' && k.use !== 'enc')!;
}

let person: Awaited<ReturnType<typeof personWithPassword>>;
beforeAll(async () => {
  person = await personWithPassword('trusted-iss', `Tr-${uniq()}-correct horse`);
  await linkAtDevProvider(person.email);
});

test('a linked person\'s token from the trusted issuer acts as that person', async () => {
  const token = await mintDevToken({ sub: devSubjectOf(person.email), email: person.email });
  const catalogs = await gateway().get('/v1/warehouses').set(bearer(token));
  expect(catalogs.status).toBe(200);
  expect(catalogs.body.warehouses.map((w: { warehouse_id: string }) => w.warehouse_id)).toEqual([person.lake]);
  const keys = await gateway().get('/v1/api-keys').set(bearer(token));
  expect(keys.status).toBe(200);
  expect(keys.body.principal_id).toBe(person.principalId);
  const orgs = await gateway().get('/v1/orgs').set(bearer(token));
  expect(orgs.status).toBe(200);
  expect(orgs.body.organizations).toEqual([expect.objectContaining({ org_id: person.org.org_id, role: 'admin' })]);
});

test('a subject linked to no one is refused, saying how to link it', async () => {
  const token = await mintDevToken({ sub: devSubjectOf(`nobody-${uniq()}@example.com`) });
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(token))))
    .toBe(`no Floe account is linked to this subject of ${devIssuer()}: sign in once with that provider on the login page to link it`);
});

test('an issuer the deployment does not trust: the answer of any foreign token', async () => {
  const { privateKey } = await generateKeyPair('RS256');
  const token = await new SignJWT({}).setProtectedHeader({ alg: 'RS256', kid: 'untrusted-1' }).setIssuer('https://idp.untrusted.example')
    .setSubject(devSubjectOf(person.email)).setAudience(stack().base_url).setExpirationTime('5m').sign(privateKey);
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(token)))).toBe('the access token is not valid here');
});

test('expired, or for another audience: refused, saying which', async () => {
  const sub = devSubjectOf(person.email);
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(await mintDevToken({ sub, expiresIn: -120 }))))).toBe('the access token has expired');
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(await mintDevToken({ sub, aud: 'someone-else' })))))
    .toBe(`the access token is not accepted: its audience is not one this deployment accepts for ${devIssuer()}`);
});

test('alg none, and HS256 keyed with the provider\'s public key (key confusion): refused as bad signatures', async () => {
  const claims = { iss: devIssuer(), sub: devSubjectOf(person.email), aud: stack().base_url, exp: soon() };
  const none = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims)}.`;
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(none)))).toBe(signatureReason());

  const jwk = await publishedKey();
  const pem = await exportSPKI(await importJWK(jwk, 'RS256') as CryptoKey);
  const confused = await new SignJWT({}).setProtectedHeader({ alg: 'HS256', kid: jwk.kid, typ: 'JWT' })
    .setIssuer(claims.iss).setSubject(claims.sub).setAudience(claims.aud).setExpirationTime('5m').sign(new TextEncoder().encode(pem));
  expect(refused(await gateway().get('/v1/warehouses').set(bearer(confused)))).toBe(signatureReason());
});

test('a linked person suspended: the token gets the standing refusal every credential of theirs gets', async () => {
  const p = await newPrincipal('human');
  await linkAtDevProvider(p.email!);
  const token = await mintDevToken({ sub: devSubjectOf(p.email!) });
  const before = await gateway().get('/v1/api-keys').set(bearer(token));
  expect(before.status).toBe(200);
  expect(before.body.principal_id).toBe(p.principal_id);
  expect((await identity().post(`/internal/principals/${p.principal_id}/suspend`).set(bearer(stack().bootstrap_secret))).status).toBe(200);
  expect(expectError(await gateway().get('/v1/api-keys').set(bearer(token)), 403, 'principal_suspended').message).toBe('this principal is suspended');
});
