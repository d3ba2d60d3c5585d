import pg from 'pg';
import { Redis } from 'ioredis';
import type { FloeConfig } from '@floe/config';
import { Authenticator } from '@floe/auth';
import { Keyring } from '@floe/db/sealed';
import type { Logger } from '@floe/http';
import { createPool } from '@floe/http';
import { SigningKeys } from './signing/signing-keys';

/** Everything the identity routes touch outside the process. */
export interface IdentityDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  redis: Redis;
  auth: Authenticator;
  signingKeys: SigningKeys;
}

export function createDeps(config: FloeConfig, logger: Logger): IdentityDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 10, name: 'identity', logger });
  // Auto-pipelining folds the per-request epoch and rate-limit reads into one round trip.
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const auth = new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix });
  const signingKeys = new SigningKeys(db, new Keyring(config.dataKeys), config.keyOverlapSeconds, config.signerCacheSeconds * 1000);
  return { config, logger, db, redis, auth, signingKeys };
}

export async function closeDeps(d: IdentityDeps): Promise<void> {
  await Promise.allSettled([d.db.end(), d.redis.quit()]);
}
