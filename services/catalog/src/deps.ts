import pg from 'pg';
import { Redis } from 'ioredis';
import type { FloeConfig } from '@floe/config';
import { Keyring } from '@floe/db/sealed';
import { createPool, type Logger } from '@floe/http';
import { RgwStorage, deploymentStorage } from '@floe/storage';
import { CatalogAuth } from './auth';
import { MetadataFiles } from './metadata-files';

export interface CatalogDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  redis: Redis;
  auth: CatalogAuth;
  storage: RgwStorage;
  /** Opens the warehouses' sealed storage keys. */
  keyring: Keyring;
  metadata: MetadataFiles;
}

export function createDeps(config: FloeConfig, logger: Logger): CatalogDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 10, name: 'catalog', logger });
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const keyring = new Keyring(config.dataKeys);
  const auth = new CatalogAuth({ db, keyring, redis, baseUrl: config.baseUrl, catalogUrl: config.catalogUrl, redisPrefix: config.redisPrefix });
  const storage = deploymentStorage(config.s3);
  return { config, logger, db, redis, auth, storage, keyring, metadata: new MetadataFiles() };
}

export async function closeDeps(d: CatalogDeps): Promise<void> {
  await Promise.allSettled([d.db.end(), d.redis.quit()]);
}
