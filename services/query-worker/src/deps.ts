import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionOptions } from 'bullmq';
import { CatalogClient } from '@floe/catalog-client';
import { warehouseTokenSource } from '@floe/catalogs/catalog-tokens';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, type ProcessDeps } from '@floe/http';
import { queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';
import { FileCache } from './file-cache';

/** Everything a statement touches outside the process: config, logger and pool (packages/http's deployable), and these. */
export interface QueryWorkerDeps extends ProcessDeps {
  prisma: PrismaClient;
  /** The catalog, as the warehouse's own identity: tables are loaded with a session vended for their location alone. */
  catalog: CatalogClient;
  /** Acting in the store only with a vended session or a warehouse's read-only identity. */
  storage: StorageProvider;
  /** Opens a warehouse's read-only identity (object previews). */
  keyring: Keyring;
  /** The worker's own directory: statements' directories and the kept table files. */
  scratchDir: string;
  cache: FileCache;
  limits: { memoryLimit: string; threads: number };
  connection: ConnectionOptions;
  prefix: string;
  producers: Producers;
}

export const queryWorker = deployable<QueryWorkerDeps>({
  name: 'query-worker',
  poolMax: 4,
  particular: ({ config, db }) => {
    const prisma = prismaOver(db);
    const scratchDir = join(config.engine.scratchDir ?? join(tmpdir(), 'floe-engine'), `query-${process.pid}`);
    return {
      prisma,
      catalog: new CatalogClient(config, warehouseTokenSource(prisma, config)),
      storage: deploymentStorage(config.s3),
      keyring: new Keyring(config.dataKeys),
      scratchDir,
      cache: new FileCache(join(scratchDir, 'kept'), config.query.fileCacheBytes),
      limits: { memoryLimit: config.query.memoryLimit, threads: config.query.threads },
      ...queueDeps(config.redisUrl, config.redisPrefix),
    };
  },
  close: (d) => [d.producers.close(), d.prisma.$disconnect()],
});
