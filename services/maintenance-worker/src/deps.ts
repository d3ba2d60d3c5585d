import type { ConnectionOptions } from 'bullmq';
import { engineHandle, type EngineHandle } from '@floe/engine';
import { CatalogClient } from '@floe/catalog-client';
import { warehouseTokenSource } from '@floe/catalogs/catalog-tokens';
import { prismaOver, type PrismaClient } from '@floe/db';
import { deployable, type ProcessDeps } from '@floe/http';
import { queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';

/** Everything a maintenance run touches outside the process: config, logger and pool (packages/http's deployable), and these. */
export interface MaintenanceDeps extends ProcessDeps {
  /** The Prisma client over the process's one pool: the runs it records, the tables the sweep reads. */
  prisma: PrismaClient;
  /** Acting in the object store with the storage session the catalog vends for one table's location: never more. */
  storage: StorageProvider;
  /** The catalog, as the warehouse's own identity: the one writer of table metadata. */
  catalog: CatalogClient;
  /** The sweep queues each table's run. */
  producers: Producers;
  /** The data-plane engine compaction rewrites with: opened on first use (most runs never need it), one per process. */
  engine: EngineHandle;
  /** BullMQ's own connections and key prefix. */
  connection: ConnectionOptions;
  prefix: string;
}

export const maintenanceWorker = deployable<MaintenanceDeps>({
  name: 'maintenance-worker',
  poolMax: 6,
  particular: ({ config, db }) => {
    const prisma = prismaOver(db);
    return {
      prisma,
      storage: deploymentStorage(config.s3),
      catalog: new CatalogClient(config, warehouseTokenSource(prisma, config)),
      ...queueDeps(config.redisUrl, config.redisPrefix),
      engine: engineHandle(config.engine, 'maintenance'),
    };
  },
  close: (d) => [d.producers.close(), d.prisma.$disconnect(), d.engine.close()],
});
