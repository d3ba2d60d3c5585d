import type { ConnectionOptions } from 'bullmq';
import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { queueConnection, queuePrefix } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';

/** Everything the teardown worker's jobs touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface WorkerDeps extends RedisDeps {
  storage: StorageProvider;
  /** Opens the warehouses' sealed storage secret keys (the provisioning probe acts as the warehouse). */
  keyring: Keyring;
  /** BullMQ's own connections and key prefix. */
  connection: ConnectionOptions;
  prefix: string;
}

export const teardownWorker = deployable<WorkerDeps>({
  name: 'teardown-worker',
  poolMax: 4,
  redis: { autoPipelining: false },
  particular: ({ config }) => ({
    storage: deploymentStorage(config.s3),
    keyring: new Keyring(config.dataKeys),
    connection: queueConnection(config.redisUrl),
    prefix: queuePrefix(config.redisPrefix),
  }),
});
