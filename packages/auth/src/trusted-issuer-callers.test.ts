// The Authenticator with a trusted issuer's tokens, against the real Postgres
// (a throwaway database with the real migrations), the real Redis and an
// identity provider on 127.0.0.1 (test-fixtures.ts): a linked person acts as
// themselves, an unlinked subject is told how to link it, and the person's
// standing refuses as it does for every other token.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { throwawayDatabase } from '../../../tests/support/throwaway-db';
import { Authenticator } from './authenticate';
import { bumpCredentialEpoch } from './credential-cache';
import { AUDIENCE, TestIssuer, issuerToken, refusal, signingKey, type SigningKey } from './test-fixtures';

const db = throwawayDatabase('trusted_issuer_callers');
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const prefix = `test:tic:${randomBytes(4).toString('hex')}:`;
let idp: TestIssuer;
let key: SigningKey;
let auth: Authenticator;

beforeAll(async () => {
  idp = await new TestIssuer().start();
  key = await signingKey();
  await idp.publish(key);
  auth = new Authenticator({
    db: db.pool(), redis, baseUrl: AUDIENCE, redisPrefix: prefix, recordKeyUse: async () => undefined,
    trustedIssuers: [{ issuer: idp.url, audiences: [AUDIENCE] }], logger: { warn: () => undefined },
  });
});
afterAll(async () => {
  await idp.stop();
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** A person linked to `subject` at the test issuer, as identity's sign-in with the provider links them. */
async function linkedPerson(subject: string): Promise<{ id: string; email: string }> {
  const id = `p_${randomBytes(6).toString('hex')}`;
  const email = `${id}@example.com`;
  await db.prisma().principal.create({ data: { id, kind: 'human', email } });
  await db.prisma().externalIdentity.create({ data: { id: `ext_${id}`, principalId: id, issuer: idp.url, subject, email } });
  return { id, email };
}

test('a linked person\'s token from the trusted issuer acts as that person', async () => {
  const person = await linkedPerson('sub-linked');
  const token = await issuerToken(key, idp.url, { sub: 'sub-linked' });
  expect(await auth.bearer(token, '203.0.113.1')).toEqual({ principalId: person.id, kind: 'human', email: person.email, via: 'token', keyId: null, sessionId: null });
  expect(await auth.token(token)).toMatchObject({ principalId: person.id });
});

test('a subject linked to no one is refused, saying how to link it', async () => {
  expect(await refusal(auth.token(await issuerToken(key, idp.url, { sub: 'sub-nobody' })))).toEqual({
    status: 401, code: 'unauthorized', challenge: 'Bearer error="invalid_token"',
    message: `no Floe account is linked to this subject of ${idp.url}: sign in once with that provider on the login page to link it`,
  });
});

test('a linked person suspended, then deleted: the standing refusals, from the next request on', async () => {
  const person = await linkedPerson('sub-standing');
  const token = await issuerToken(key, idp.url, { sub: 'sub-standing' });
  expect(await auth.token(token)).toMatchObject({ principalId: person.id });
  await db.prisma().principal.update({ where: { id: person.id }, data: { status: 'suspended' } });
  await bumpCredentialEpoch(redis, prefix);
  expect(await refusal(auth.token(token))).toMatchObject({ status: 403, code: 'principal_suspended' });
  await db.prisma().principal.update({ where: { id: person.id }, data: { status: 'deleted' } });
  await bumpCredentialEpoch(redis, prefix);
  expect(await refusal(auth.token(token))).toMatchObject({ status: 401, code: 'account_deleted', challenge: 'Bearer error="invalid_token"' });
});

test('the trusted issuer\'s refusals reach the caller: wrong audience, expired', async () => {
  await linkedPerson('sub-claims');
  expect(await refusal(auth.token(await issuerToken(key, idp.url, { sub: 'sub-claims', aud: 'someone-else' })))).toMatchObject({
    status: 401, code: 'unauthorized', message: `the access token is not accepted: its audience is not one this deployment accepts for ${idp.url}`,
  });
  expect(await refusal(auth.token(await issuerToken(key, idp.url, { sub: 'sub-claims', exp: Math.floor(Date.now() / 1000) - 120 })))).toMatchObject({
    status: 401, code: 'unauthorized', message: 'the access token has expired',
  });
});

test('an issuer not trusted keeps the answer of any foreign token, and is not fetched', async () => {
  const elsewhere = await new TestIssuer().start();
  try {
    const otherKey = await signingKey();
    await elsewhere.publish(otherKey);
    expect(await refusal(auth.token(await issuerToken(otherKey, elsewhere.url, { sub: 'sub-linked' })))).toMatchObject({
      status: 401, code: 'unauthorized', message: 'the access token is not valid here',
    });
    expect(elsewhere.requests).toEqual([]);
  } finally {
    await elsewhere.stop();
  }
});
