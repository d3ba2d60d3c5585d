// `npm run keys:rotate`: a new signing key signs from now on; the old one stays
// in the JWKS until every token it signed has expired.
import pg from 'pg';
import { loadConfig } from '@floe/config';
import { SigningKeys } from '../signing/signing-keys';

const config = loadConfig();
const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 1 });
try {
  const result = await new SigningKeys(pool, config.keyOverlapSeconds).rotate();
  console.log(`new signing key ${result.kid} signs from now on`);
  if (result.retired.length) {
    console.log(`retired ${result.retired.join(', ')}; still published until ${result.publishedUntil}`);
  }
  console.log('identity replicas pick up the new key within 30 s; verifiers load it on first sight of its kid');
} finally {
  await pool.end();
}
