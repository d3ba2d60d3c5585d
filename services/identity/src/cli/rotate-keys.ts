// `npm run keys:rotate`: a new signing key signs from now on; the old one stays
// in the JWKS until every token it signed has expired. Needs the deployment's
// FLOE_DATA_KEYS: the new private key is sealed with it.
import pg from 'pg';
import { loadConfig } from '@floe/config';
import { prismaOver } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { SigningKeys } from '../signing/signing-keys';

const config = loadConfig();
const keyring = new Keyring(config.dataKeys);
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 1 });
const prisma = prismaOver(pool);
try {
  const result = await new SigningKeys({ prisma, db: pool }, keyring, config.keyOverlapSeconds).rotate();
  console.log(`new signing key ${result.kid} signs from now on`);
  if (result.retired.length) {
    console.log(`retired ${result.retired.join(', ')}; still published until ${result.publishedUntil}`);
  }
  console.log('identity replicas pick up the new key within 30 s; verifiers load it on first sight of its kid');
} finally {
  await prisma.$disconnect();
  await pool.end();
}
