import { recordKeyUse, type CatalogFinder } from '@floe/accounts';
import { AttemptLimit, Authenticator } from '@floe/auth';
import { CatalogSecrets, resolveWarehouse } from '@floe/catalogs';
import { prismaOver, type PrismaClient } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { deployable, type RedisDeps } from '@floe/http';
import { Mailer } from '@floe/mail';
import { queueDeps, type JobRunnerOptions, type Producers } from '@floe/queues';
import { deploymentStorage, type StorageProvider } from '@floe/storage';
import { DEVICE_CODE_MISSES_PER_HOUR } from './domain/device-approval';
import { DevCodes, ResendGate, STARTS_PER_HOUR } from './domain/email-codes';
import { LoginFailures } from './domain/login';
import { AUTHORIZE_PER_HOUR } from './domain/oauth-authorize';
import { REGISTRATIONS_PER_HOUR } from './domain/oauth-register';
import { SigningKeys } from './signing/signing-keys';

/** Everything the identity routes touch outside the process: config, logger, pool and Redis (packages/http's deployable), and these. */
export interface IdentityDeps extends RedisDeps {
  /** The generated Prisma client over the same pool: the store modules' data access. */
  prisma: PrismaClient;
  auth: Authenticator;
  signingKeys: SigningKeys;
  mailer: Mailer;
  /** The catalogs a grant names, found for the accounts aggregate (an approved device login's, an OAuth consent's). */
  catalogs: CatalogFinder;
  /**
   * What making a catalog takes (packages/catalogs: a sign-up's `lake`, a
   * device approval's first catalog): the store, the data keys that seal its
   * storage secrets, the catalog credentials' key, and the queues its probe
   * and first usage sample go on.
   */
  storage: StorageProvider;
  keyring: Keyring;
  secrets: CatalogSecrets;
  queues: Producers;
  /** BullMQ's own connections and key prefix, for the job runner (jobs.ts: the OAuth prune pass). */
  connection: JobRunnerOptions['connection'];
  prefix: string;
  /** The 60 s between two mails of one purpose to one address, held against starts fired together. */
  resends: ResendGate;
  /** Sign-up, recovery and reset starts: five per hour per address, one budget. */
  starts: AttemptLimit;
  /** The same four starts per caller address (FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR, 5 an hour), one budget. */
  mailCallers: AttemptLimit;
  /** Development and test stacks: pending codes in plain text for the internal look-up route. */
  devCodes: DevCodes;
  /** Login attempts per caller address (120 an hour) and failures per account address (10 an hour). */
  loginAttempts: AttemptLimit;
  loginFailures: LoginFailures;
  /** Device authorisation starts per caller address (60 an hour). */
  deviceStarts: AttemptLimit;
  /** Device user codes a person looked up and missed (20 an hour). */
  deviceCodeMisses: AttemptLimit;
  /** OAuth authorization requests (120 an hour) and dynamic registrations (20 an hour) per caller address. */
  authorizeAttempts: AttemptLimit;
  registrations: AttemptLimit;
}

export const identity = deployable<IdentityDeps>({
  name: 'identity',
  poolMax: 10,
  // Auto-pipelining folds the per-request epoch and rate-limit reads into one round trip.
  redis: { autoPipelining: true },
  particular: ({ config, logger, db, redis }) => {
    const prisma = prismaOver(db);
    const keyring = new Keyring(config.dataKeys);
    const { connection, prefix, producers } = queueDeps(config.redisUrl, config.redisPrefix);
    return {
      prisma,
      auth: new Authenticator({ db, redis, baseUrl: config.baseUrl, redisPrefix: config.redisPrefix, oauthResource: config.oauth.mcpUrl, recordKeyUse: (keyId) => recordKeyUse(db, keyId), trustedIssuers: config.trustedIssuers, logger }),
      signingKeys: new SigningKeys({ prisma, db }, keyring, config.keyOverlapSeconds, config.signerCacheSeconds * 1000),
      mailer: new Mailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, logger }),
      catalogs: { resolve: resolveWarehouse },
      storage: deploymentStorage(config.s3),
      keyring,
      secrets: new CatalogSecrets(config.credentialKey),
      queues: producers,
      connection,
      prefix,
      resends: new ResendGate(redis, `${config.redisPrefix}mail-resend:`),
      starts: new AttemptLimit(redis, `${config.redisPrefix}rl:starts:`, STARTS_PER_HOUR, 3600),
      mailCallers: new AttemptLimit(redis, `${config.redisPrefix}rl:mail-callers:`, config.mailStartsPerCallerPerHour, 3600),
      devCodes: new DevCodes(redis, config.redisPrefix, config.env !== 'production'),
      loginAttempts: new AttemptLimit(redis, `${config.redisPrefix}rl:login-attempts:`, config.loginAttemptsPerHour, 3600),
      loginFailures: new LoginFailures(redis, config.redisPrefix),
      deviceStarts: new AttemptLimit(redis, `${config.redisPrefix}rl:device-starts:`, config.deviceStartsPerHour, 3600),
      deviceCodeMisses: new AttemptLimit(redis, `${config.redisPrefix}rl:device-code-misses:`, DEVICE_CODE_MISSES_PER_HOUR, 3600),
      authorizeAttempts: new AttemptLimit(redis, `${config.redisPrefix}rl:oauth-authorize:`, AUTHORIZE_PER_HOUR, 3600),
      registrations: new AttemptLimit(redis, `${config.redisPrefix}rl:oauth-register:`, REGISTRATIONS_PER_HOUR, 3600),
    };
  },
  // Prisma, the queues and the mail transport close with Redis; the pool, which Prisma runs over, after them.
  close: (d) => [d.prisma.$disconnect(), d.queues.close(), Promise.resolve(d.mailer.close())],
});
