import { CurrentSigner, WrongSecretLimiter } from '@floe/auth';
import type { CatalogTokenDeps } from '@floe/catalogs/catalog-tokens';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { MaintenanceOnCommit, queueDeps, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';
import { CatalogAuth } from './auth';
import { MetadataFiles } from './metadata-files';
import { ScanPlans } from './store/scan-plans';

/** Everything the catalog touches outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface CatalogDeps extends RedisDeps {
  auth: CatalogAuth;
  storage: StorageProvider;
  /** Opens the warehouses' sealed storage keys. */
  keyring: Keyring;
  metadata: MetadataFiles;
  /** Queues a table's maintenance run when a commit makes it cross a rule (packages/queues maintenance-trigger.ts). */
  maintenance: MaintenanceOnCommit;
  producers: Producers;
  /** What POST /v1/oauth/tokens mints with: the credentials' store, the current signing key, the issuer and audience. */
  tokens: CatalogTokenDeps & { prisma: PrismaClient };
  /** The wrong-secret limit of the token route, per client and per address. */
  wrongSecrets: WrongSecretLimiter;
  /** Scan plans held between requests (Redis). */
  scanPlans: ScanPlans;
}

export const catalog = deployable<CatalogDeps>({
  name: 'catalog',
  poolMax: 10,
  redis: { autoPipelining: true },
  particular: ({ config, db, redis, logger }) => {
    const keyring = new Keyring(config.dataKeys);
    const auth = new CatalogAuth({ db, keyring, redis, baseUrl: config.baseUrl, catalogUrl: config.catalogUrl, redisPrefix: config.redisPrefix });
    const { producers } = queueDeps(config.redisUrl, config.redisPrefix);
    const prisma = prismaOver(db);
    return {
      auth, storage: deploymentStorage(config.s3), keyring, metadata: new MetadataFiles(config.catalogMetadataCacheBytes), producers,
      maintenance: new MaintenanceOnCommit({ producers, logger }),
      tokens: { prisma, signer: new CurrentSigner(prisma, keyring, config.signerCacheSeconds * 1000), config },
      // Its own key prefix: a catalog credential's wrong secrets count apart from the API keys' and the passwords'.
      wrongSecrets: new WrongSecretLimiter(redis, `${config.redisPrefix}catalog:`),
      scanPlans: new ScanPlans(redis, `${config.redisPrefix}catalog:`),
    };
  },
  close: (d) => [d.producers.close(), d.tokens.prisma.$disconnect()],
});
