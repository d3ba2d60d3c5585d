import { Authenticator } from '@floe/auth';
import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { SigningKeys } from './signing/signing-keys';

/** Everything the identity routes touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface IdentityDeps extends RedisDeps {
  auth: Authenticator;
  signingKeys: SigningKeys;
}

export const identity = deployable<IdentityDeps>({
  name: 'identity',
  poolMax: 10,
  // Auto-pipelining folds the per-request epoch and rate-limit reads into one round trip.
  redis: { autoPipelining: true },
  particular: ({ config, db, redis }) => ({
    auth: new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix }),
    signingKeys: new SigningKeys(db, new Keyring(config.dataKeys), config.keyOverlapSeconds, config.signerCacheSeconds * 1000),
  }),
});
