import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { prismaOver } from '@floe/db';
import { SigningKeys } from '../../services/identity/src/signing/signing-keys';
import { stackKeyring } from '../support/keyring';
import { bearer, db, gateway, newPrincipal, stack } from './helpers';

const mint = async (apiKey: string): Promise<string> =>
  (await gateway().post('/v1/tokens').send({ api_key: apiKey }).expect(200)).body.access_token;

test('rotation: a new key signs, both keys stay published, tokens of the old key keep working', async () => {
  const p = await newPrincipal();
  const before = await mint(p.api_key);
  const oldKid = decodeProtectedHeader(before).kid;

  const pool = db();
  const prisma = prismaOver(pool);
  let rotated: { kid: string; retired: string[] };
  try {
    rotated = await new SigningKeys({ prisma, db: pool }, stackKeyring(stack()), 1200).rotate();
  } finally {
    await prisma.$disconnect();
    await pool.end();
  }
  expect(rotated.retired).toContain(oldKid);
  expect(rotated.kid).not.toBe(oldKid);

  const jwks = await gateway().get('/jwks.json');
  const kids = jwks.body.keys.map((k: { kid: string }) => k.kid);
  expect(kids).toEqual(expect.arrayContaining([oldKid, rotated.kid]));

  // The e2e stack's signer cache is 1 s; after it, new tokens carry the new kid.
  await new Promise((r) => setTimeout(r, 1500));
  const after = await mint(p.api_key);
  expect(decodeProtectedHeader(after).kid).toBe(rotated.kid);

  const base = stack().base_url;
  const remote = createRemoteJWKSet(new URL(`${base}/jwks.json`));
  for (const t of [before, after]) {
    await jwtVerify(t, remote, { issuer: base, audience: base });
    expect((await gateway().get('/v1/api-keys').set(bearer(t))).status).toBe(200);
  }
  expect((await gateway().get('/healthz')).body.kid).toBe(rotated.kid);
});
