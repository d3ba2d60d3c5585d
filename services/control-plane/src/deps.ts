import pg from 'pg';
import { Redis } from 'ioredis';
import type { RequestHandler } from 'express';
import type { FloeConfig } from '@floe/config';
import { Authenticator } from '@floe/auth';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { createPool, IdempotencyStore, type Logger } from '@floe/http';
import { Producers, queueConnection, queuePrefix } from '@floe/queues';
import { RgwStorage, deploymentStorage } from '@floe/storage';
import { loadAccess } from './access/context';
import { CatalogClient } from './catalog-client';
import { CatalogSecrets } from './domain/catalog-credentials';

/** Everything the control-plane routes touch outside the process. */
export interface ControlPlaneDeps {
  config: FloeConfig;
  logger: Logger;
  db: pg.Pool;
  /** The generated Prisma client over the same pool: the store modules' data access. */
  prisma: PrismaClient;
  redis: Redis;
  auth: Authenticator;
  storage: RgwStorage;
  idempotency: IdempotencyStore;
  queues: Producers;
  secrets: CatalogSecrets;
  /** Seals and opens the warehouses' storage secret keys (the deployment's data keys). */
  keyring: Keyring;
  /** The Iceberg REST catalog, as each warehouse's own identity. */
  catalog: CatalogClient;
  /** Authentication then the caller's organisations: the head of every caller route. */
  authed: RequestHandler[];
}

export function createDeps(config: FloeConfig, logger: Logger): ControlPlaneDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 10, name: 'control-plane', logger });
  const redis = new Redis(config.redisUrl, { enableAutoPipelining: true, maxRetriesPerRequest: 2 });
  redis.on('error', (err) => logger.error('redis error', { err: err.message }));
  const auth = new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix });
  const storage = deploymentStorage(config.s3);
  const queues = new Producers(queueConnection(config.redisUrl), queuePrefix(config.redisPrefix));
  const prisma = prismaOver(db);
  return {
    config, logger, db, redis, auth, storage, queues, prisma,
    idempotency: new IdempotencyStore(db),
    secrets: new CatalogSecrets(config.credentialKey),
    keyring: new Keyring(config.dataKeys),
    catalog: new CatalogClient(config),
    authed: [auth.requireCaller(), loadAccess(prisma)],
  };
}

export async function closeDeps(d: ControlPlaneDeps): Promise<void> {
  await Promise.allSettled([d.queues.close(), d.prisma.$disconnect(), d.redis.quit()]);
  await d.db.end().catch(() => undefined);
}
