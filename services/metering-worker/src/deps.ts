import type { ConnectionOptions } from 'bullmq';
import { prismaOver, type PrismaClient } from '@floe/db';
import { deployable, type RedisDeps } from '@floe/http';
import { queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';

/** Everything the metering worker's jobs touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface MeteringDeps extends RedisDeps {
  /** The generated Prisma client over the same pool: the store modules' data access. */
  prisma: PrismaClient;
  storage: StorageProvider;
  /** BullMQ's own connections and key prefix. */
  connection: ConnectionOptions;
  prefix: string;
  /** The sweep queues each catalog's measurement. */
  producers: Producers;
}

export const meteringWorker = deployable<MeteringDeps>({
  name: 'metering-worker',
  poolMax: 4,
  redis: { autoPipelining: false },
  particular: ({ config, db }) => ({
    prisma: prismaOver(db),
    storage: deploymentStorage(config.s3),
    ...queueDeps(config.redisUrl, config.redisPrefix),
  }),
  // Prisma closes with Redis; the pool, which Prisma runs over, after them.
  close: (d) => [d.producers.close(), d.prisma.$disconnect()],
});
