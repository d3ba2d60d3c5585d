import type { RequestHandler } from 'express';
import { legacyDomainProofKey, recordKeyUse, type CatalogFinder, type TxtLookup } from '@floe/accounts';
import { resolveWarehouse, CatalogSecrets, warehouseTokenSource } from '@floe/catalogs';
import { Authenticator } from '@floe/auth';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, IdempotencyStore, type RedisDeps } from '@floe/http';
import { Mailer } from '@floe/mail';
import { Producers, queueConnection, queuePrefix } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';
import { loadAccess } from './access/load';
import { CatalogClient } from './catalog-client';
import { txtLookup } from './dns-txt';

/** Everything the control-plane routes touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface ControlPlaneDeps extends RedisDeps {
  /** The generated Prisma client over the same pool: the store modules' data access. */
  prisma: PrismaClient;
  auth: Authenticator;
  storage: StorageProvider;
  idempotency: IdempotencyStore;
  queues: Producers;
  secrets: CatalogSecrets;
  /** Seals and opens the warehouses' storage secret keys (the deployment's data keys). */
  keyring: Keyring;
  /** The Iceberg REST catalog, as each warehouse's own identity. */
  catalog: CatalogClient;
  /** The catalogs a grant names, found for the accounts aggregate (packages/accounts CatalogFinder). */
  catalogs: CatalogFinder;
  /** Invitations go out through it (packages/mail: SMTP, or the log on a stack without a server). */
  mailer: Mailer;
  /** Authentication then the caller's organisations: the head of every caller route. */
  authed: RequestHandler[];
  /** The same for a route that only reads whatever its method (a token consented for reading may call it). */
  authedToRead: RequestHandler[];
  /** The key of the domain DNS proof's tokens handed out before tokens were stored (from the bootstrap secret; null without one). */
  legacyDomainProofKey: Buffer | null;
  /** TXT lookups of the domain DNS proof, over FLOE_DNS_SERVERS. */
  lookupTxt: TxtLookup;
}

export const controlPlane = deployable<ControlPlaneDeps>({
  name: 'control-plane',
  poolMax: 10,
  redis: { autoPipelining: true },
  particular: ({ config, db, redis, logger }) => {
    const auth = new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix, oauthResource: config.oauth.mcpUrl, recordKeyUse: (keyId) => recordKeyUse(db, keyId), trustedIssuers: config.trustedIssuers, logger });
    const prisma = prismaOver(db);
    return {
      auth,
      storage: deploymentStorage(config.s3),
      queues: new Producers(queueConnection(config.redisUrl), queuePrefix(config.redisPrefix)),
      prisma,
      idempotency: new IdempotencyStore(db),
      secrets: new CatalogSecrets(config.credentialKey),
      keyring: new Keyring(config.dataKeys),
      catalog: new CatalogClient(config, warehouseTokenSource(prisma, config)),
      catalogs: { resolve: resolveWarehouse },
      mailer: new Mailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, logger }),
      authed: [auth.requireCaller(), loadAccess(prisma, db)],
      authedToRead: [auth.requireCaller(), loadAccess(prisma, db, true)],
      legacyDomainProofKey: legacyDomainProofKey(config.bootstrapSecret),
      lookupTxt: txtLookup(config.dnsServers),
    };
  },
  // The queues, Prisma and the mail transport close with Redis; the pool, which Prisma runs over, after them.
  close: (d) => [d.queues.close(), d.prisma.$disconnect(), Promise.resolve(d.mailer.close())],
});

/** The control plane's deps outside its main (route tests build the app over them). */
export const { createDeps, closeDeps } = controlPlane;
