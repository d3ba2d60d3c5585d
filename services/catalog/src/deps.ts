import pg from 'pg';
import { Redis } from 'ioredis';
import type { FloeConfig } from '@floe/config';
import type { Logger } from '@floe/http';
import { RgwStorage } from '@floe/storage';
import { CatalogAuth } from './auth';
import { MetadataFiles } from './metadata-files';

export interface CatalogDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  redis: Redis;
  auth: CatalogAuth;
  storage: RgwStorage;
  metadata: MetadataFiles;
}

export function createDeps(config: FloeConfig, logger: Logger): CatalogDeps {
  const db = new pg.Pool({ connectionString: config.databaseUrl, max: 10 });
  db.on('error', (err) => logger.error('postgres pool error', { err }));
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const auth = new CatalogAuth({ db, redis, baseUrl: config.baseUrl, catalogUrl: config.catalogUrl, redisPrefix: config.redisPrefix });
  if (!config.s3.adminAccessKey || !config.s3.adminSecretKey) throw new Error('FLOE_S3_ADMIN_ACCESS_KEY and FLOE_S3_ADMIN_SECRET_KEY are required');
  const storage = new RgwStorage({ endpoint: config.s3.endpoint, region: config.s3.region, adminAccessKey: config.s3.adminAccessKey, adminSecretKey: config.s3.adminSecretKey });
  return { config, logger, db, redis, auth, storage, metadata: new MetadataFiles() };
}

export async function closeDeps(d: CatalogDeps): Promise<void> {
  await Promise.allSettled([d.db.end(), d.redis.quit()]);
}
