import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { deploymentStorage, type StorageProvider } from '@floe/storage';
import { DeviceRateLimiter } from './device-rate';

/** Everything the ingest gateway touches outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface IngestDeps extends RedisDeps {
  storage: StorageProvider;
  /** Opens the warehouses' sealed storage secret keys: a batch is written as the warehouse's identity. */
  keyring: Keyring;
  deviceRate: DeviceRateLimiter;
}

export const ingestGateway = deployable<IngestDeps>({
  name: 'ingest-gateway',
  poolMax: 10,
  redis: { autoPipelining: true },
  particular: ({ config, redis }) => ({
    storage: deploymentStorage(config.s3),
    keyring: new Keyring(config.dataKeys),
    deviceRate: new DeviceRateLimiter(redis, config.redisPrefix),
  }),
});
