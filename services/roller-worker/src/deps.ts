import type { ConnectionOptions } from 'bullmq';
import { CatalogClient } from '@floe/catalog-client';
import { engineHandle, type EngineHandle } from '@floe/engine';
import { warehouseTokenSource } from '@floe/catalogs/catalog-tokens';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, type ProcessDeps } from '@floe/http';
import { queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';

/** Everything a roll touches outside the process: config, logger and pool (packages/http's deployable; no Redis client of its own), and these. */
export interface RollerDeps extends ProcessDeps {
  /** The Prisma client over the process's one pool: the sink ledger (packages/ingest ledger-store.ts); the roll lock takes its own connection from the pool (sink-lock.ts). */
  prisma: PrismaClient;
  storage: StorageProvider;
  /** Opens the warehouses' sealed storage secret keys: a roll reads and writes the blob bucket as the warehouse. */
  keyring: Keyring;
  catalog: CatalogClient;
  /** BullMQ's own connections and key prefix. */
  connection: ConnectionOptions;
  prefix: string;
  /** The tick queues each due sink's roll. */
  producers: Producers;
  /** The data-plane engine a roll reads its batches and writes its data files with: opened on first use, one per process. */
  engine: EngineHandle;
}

export const rollerWorker = deployable<RollerDeps>({
  name: 'roller-worker',
  poolMax: 6,
  particular: ({ config, db }) => {
    const prisma = prismaOver(db);
    return {
      prisma,
      storage: deploymentStorage(config.s3),
      keyring: new Keyring(config.dataKeys),
      catalog: new CatalogClient(config, warehouseTokenSource(prisma, config)),
      ...queueDeps(config.redisUrl, config.redisPrefix),
      engine: engineHandle(config.engine, 'roller'),
    };
  },
  close: (d) => [d.engine.close(), d.producers.close(), d.prisma.$disconnect()],
});

/** A roller's deps outside its main (bench/ingest runs rolls in its own process). */
export const { createDeps, closeDeps } = rollerWorker;
