import pg from 'pg';
import type { ConnectionOptions } from 'bullmq';
import { CatalogClient } from '@floe/catalog-client';
import type { FloeConfig } from '@floe/config';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import type { Logger } from '@floe/http';
import { createPool } from '@floe/http';
import { queueConnection, queuePrefix } from '@floe/queues';
import { RgwStorage, deploymentStorage } from '@floe/storage';
import { ShareThread } from './share-thread';

export interface RollerDeps {
  config: FloeConfig;
  logger: Logger;
  /** The process's one pg pool: the Prisma client's, and the roll lock's own connection (sink-lock.ts). */
  db: pg.Pool;
  /** The Prisma client over `db`: the sink ledger (packages/ingest ledger-store.ts). */
  prisma: PrismaClient;
  storage: RgwStorage;
  /** Opens the warehouses' sealed storage secret keys: a roll reads and writes the blob bucket as the warehouse. */
  keyring: Keyring;
  catalog: CatalogClient;
  connection: ConnectionOptions;
  prefix: string;
  /** The second thread large rolls split their work with. */
  shares: ShareThread;
}

export function createDeps(config: FloeConfig, logger: Logger): RollerDeps {
  const db = createPool({ connectionString: config.databaseUrl, max: 6, name: 'roller-worker', logger });
  const storage = deploymentStorage(config.s3);
  return {
    config, logger, db, prisma: prismaOver(db), storage, keyring: new Keyring(config.dataKeys), catalog: new CatalogClient(config),
    connection: queueConnection(config.redisUrl), prefix: queuePrefix(config.redisPrefix), shares: new ShareThread(),
  };
}

export async function closeDeps(d: RollerDeps): Promise<void> {
  await d.shares.close().catch(() => undefined);
  await d.prisma.$disconnect().catch(() => undefined);
  await d.db.end().catch(() => undefined);
}
