import pg from 'pg';
import { Redis } from 'ioredis';
import type { FloeConfig } from '@floe/config';
import { Keyring } from '@floe/db/sealed';
import type { Logger } from '@floe/http';
import { createPool } from '@floe/http';
import { queueConnection, queuePrefix } from '@floe/queues';
import { RgwStorage, deploymentStorage } from '@floe/storage';
import type { ConnectionOptions } from 'bullmq';

export interface WorkerDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  redis: Redis;
  storage: RgwStorage;
  /** Opens the warehouses' sealed storage secret keys (the provisioning probe acts as the warehouse). */
  keyring: Keyring;
  connection: ConnectionOptions;
  prefix: string;
}

export function createDeps(config: FloeConfig, logger: Logger): WorkerDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 4, name: 'teardown-worker', logger });
  const redis = new Redis(config.redisUrl, { maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const storage = deploymentStorage(config.s3);
  return { config, logger, db, redis, storage, keyring: new Keyring(config.dataKeys), connection: queueConnection(config.redisUrl), prefix: queuePrefix(config.redisPrefix) };
}

export async function closeDeps(d: WorkerDeps): Promise<void> {
  await Promise.allSettled([d.db.end(), d.redis.quit()]);
}
