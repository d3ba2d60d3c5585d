import type { ConnectionOptions } from 'bullmq';
import { prismaOver, type PrismaClient } from '@floe/db';
import { deployable, Replicas, type RedisDeps } from '@floe/http';
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
  /** The sweep queues each catalog's measurement (on `metering-sweep`). */
  producers: Producers;
  /** The control plane's replicas, which take the usage reports. */
  controlPlane: Replicas;
}

export const meteringWorker = deployable<MeteringDeps>({
  name: 'metering-worker',
  // Eight jobs run at a time (jobs.ts). A job enforcing a quota scope holds one connection for the scope's lock
  // and queries on a second (packages/db quota-scope.ts), while the scope's other jobs wait for the lock each
  // on one of their own: one more than the jobs, so the holder never waits on the pool for ever; one for /healthz.
  poolMax: 10,
  redis: { autoPipelining: false },
  particular: ({ config, db }) => ({
    prisma: prismaOver(db),
    storage: deploymentStorage(config.s3),
    controlPlane: new Replicas(config.upstreams.controlPlane),
    ...queueDeps(config.redisUrl, config.redisPrefix),
  }),
  // Prisma closes with Redis; the pool, which Prisma runs over, after them.
  close: (d) => [d.producers.close(), d.prisma.$disconnect()],
});
