import { Redis } from 'ioredis';
import pg from 'pg';
import type { FloeConfig } from '@floe/config';
import { Keyring } from '@floe/db/sealed';
import type { Logger } from '@floe/http';
import { createPool } from '@floe/http';
import { RgwStorage, deploymentStorage } from '@floe/storage';
import { DeviceRateLimiter } from './device-rate';

export interface IngestDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  redis: Redis;
  storage: RgwStorage;
  /** Opens the warehouses' sealed storage secret keys: a batch is written as the warehouse's identity. */
  keyring: Keyring;
  deviceRate: DeviceRateLimiter;
}

export function createDeps(config: FloeConfig, logger: Logger): IngestDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 10, name: 'ingest-gateway', logger });
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const storage = deploymentStorage(config.s3);
  return { config, logger, db, redis, storage, keyring: new Keyring(config.dataKeys), deviceRate: new DeviceRateLimiter(redis, config.redisPrefix) };
}

export async function closeDeps(d: IngestDeps): Promise<void> {
  await Promise.allSettled([d.db.end(), d.redis.quit()]);
}
