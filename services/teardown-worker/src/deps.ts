import type { ConnectionOptions } from 'bullmq';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';

/** Everything the teardown worker's jobs touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface WorkerDeps extends RedisDeps {
  /** The generated Prisma client over the same pool: the store modules' data access. */
  prisma: PrismaClient;
  storage: StorageProvider;
  /** Opens the warehouses' sealed storage secret keys (the provisioning probe acts as the warehouse). */
  keyring: Keyring;
  /** BullMQ's own connections and key prefix. */
  connection: ConnectionOptions;
  prefix: string;
  /** Queues the next provisioning probe, a teardown again (the sweep) or after an erasure's deletion. */
  producers: Producers;
}

export const teardownWorker = deployable<WorkerDeps>({
  name: 'teardown-worker',
  poolMax: 4,
  redis: { autoPipelining: false },
  particular: ({ config, db }) => ({
    prisma: prismaOver(db),
    storage: deploymentStorage(config.s3),
    keyring: new Keyring(config.dataKeys),
    ...queueDeps(config.redisUrl, config.redisPrefix),
  }),
  // Prisma closes with Redis; the pool, which Prisma runs over, after them.
  close: (d) => [d.producers.close(), d.prisma.$disconnect()],
});
