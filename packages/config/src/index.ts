// One place for every port, URL and setting a deployable reads. Each deployable
// calls loadConfig() once at start; a bad environment fails loudly before any
// socket is opened.
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseDataKeys, type DataKey } from './data-keys';
import { publicUrlConflicts } from './public-urls';

export { DATA_KEY_BYTES, parseDataKeys, type DataKey } from './data-keys';

const port = (fallback: number) => z.coerce.number().int().min(1).max(65535).default(fallback);
const url = z.string().url();
/** One URL, or the URLs of a service's replicas separated by commas (the gateway balances across them). */
const urls = z.string().refine((v) => v.split(',').every((u) => url.safeParse(u.trim()).success), 'a URL, or URLs separated by commas');

/** A sign-in provider of FLOE_SIGNIN_PROVIDERS. */
const SignInProvidersSchema = z.array(z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/, 'lower-case letters, digits and hyphens, starting with a letter'),
  name: z.string().min(1).max(60),
  issuer: url,
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
})).refine((a) => new Set(a.map((p) => p.id)).size === a.length, 'two providers with one id');

const EnvSchema = z.object({
  FLOE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  FLOE_REGION: z.string().default('local-1'),
  FLOE_PROVIDER: z.string().default('ceph'),
  FLOE_HOST: z.string().default('127.0.0.1'),
  // Address services bind to: loopback on one machine, 0.0.0.0 in containers.
  FLOE_LISTEN_HOST: z.string().default('127.0.0.1'),
  // The proxies in front of the deployables clients reach (a load balancer or
  // ingress before the gateway, the catalog or the ingest host), as
  // comma-separated addresses or CIDRs: only a request whose peer is one of
  // them has its X-Forwarded-For read (packages/http/src/client-address.ts).
  // Default: none. "false" (the old default) means none; "true" and hop counts
  // are refused: they would believe an address any client writes.
  FLOE_TRUST_PROXY: z.string().default('').transform((v, ctx) => {
    const t = v.trim();
    if (t === '' || t === 'false') return [];
    if (t === 'true' || /^\d+$/.test(t)) {
      ctx.addIssue({ code: 'custom', message: `${JSON.stringify(t)} would trust any X-Forwarded-For; name the proxies in front as addresses or CIDRs` });
      return z.NEVER;
    }
    return t.split(',').map((s) => s.trim()).filter(Boolean);
  }),

  FLOE_GATEWAY_PORT: port(8080),
  FLOE_IDENTITY_PORT: port(8081),
  FLOE_CONTROL_PLANE_PORT: port(8082),
  FLOE_INGEST_PORT: port(8083),
  // The ingest gateway's private listener: its /internal routes (the MCP tool server's intake), never on {ingest_url}.
  FLOE_INGEST_INTERNAL_PORT: port(8085),
  // The MCP tool server (services/mcp-server); public at FLOE_MCP_URL through the gateway.
  FLOE_MCP_PORT: port(8084),
  FLOE_CATALOG_PORT: port(8181),
  FLOE_S3_PORT: port(7480),
  FLOE_TEARDOWN_HEALTH_PORT: port(8093),
  FLOE_ROLLER_HEALTH_PORT: port(8091),
  FLOE_METERING_HEALTH_PORT: port(8092),
  FLOE_MAINTENANCE_HEALTH_PORT: port(8094),
  FLOE_QUERY_HEALTH_PORT: port(8095),
  // The development mail server's SMTP and web (inbox and REST API) ports.
  FLOE_MAIL_SMTP_PORT: port(1025),
  FLOE_MAIL_WEB_PORT: port(1080),
  // The development identity provider's port (its issuer is http://FLOE_HOST:<port>).
  FLOE_DEV_IDP_PORT: port(1090),

  // Public addresses; derived from host and ports when unset.
  FLOE_BASE_URL: url.optional(),
  FLOE_CATALOG_URL: url.optional(),
  FLOE_S3_URL: url.optional(),
  FLOE_INGEST_URL: url.optional(),
  // Where the gateway reaches each service (internal addresses); a comma-separated
  // list names replicas callers spread requests across (config.upstreams).
  FLOE_IDENTITY_URL: urls.optional(),
  FLOE_CONTROL_PLANE_URL: urls.optional(),
  FLOE_INGEST_GATEWAY_URL: urls.optional(),
  FLOE_INGEST_INTERNAL_URL: urls.optional(),
  FLOE_MCP_SERVER_URL: urls.optional(),
  // Where the control plane reaches the catalog (defaults to the public catalog_url).
  FLOE_CATALOG_INTERNAL_URL: url.optional(),

  // The object store's admin user (owner of every bucket) and the region it answers to.
  FLOE_S3_ADMIN_ACCESS_KEY: z.string().optional(),
  FLOE_S3_ADMIN_SECRET_KEY: z.string().optional(),
  FLOE_S3_REGION: z.string().default('us-east-1'),
  // Where services reach the object store (defaults to the public s3_url).
  FLOE_S3_INTERNAL_URL: url.optional(),
  DATABASE_URL: z.string().default('postgresql://postgres@127.0.0.1:5432/floe'),
  REDIS_URL: z.string().default('redis://127.0.0.1:6379'),
  // Every Redis key a stack writes starts with this, so two stacks on one Redis never collide.
  FLOE_REDIS_PREFIX: z.string().default('floe:'),

  FLOE_BOOTSTRAP_SECRET: z.string().min(16).optional(),
  // Key from which catalog client secrets are derived (HMAC); defaults to one derived from the bootstrap secret.
  FLOE_CREDENTIAL_KEY: z.string().min(16).optional(),
  // The data keys that seal stored secrets (AES-256-GCM): `<id>:<base64 32 bytes>`, comma-separated, the first seals.
  // Required by every deployable that reads or writes a sealed value; see data-keys.ts.
  FLOE_DATA_KEYS: z.string().default('').transform((v, ctx) => {
    try {
      return parseDataKeys(v);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
      return z.NEVER;
    }
  }),
  // Where mail goes out (smtp:// or smtps://, credentials in the URL); unset: mail is logged, not sent (`delivery: log`).
  FLOE_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'an smtp:// or smtps:// URL').optional(),
  FLOE_MAIL_FROM: z.string().min(3).default('Floe <no-reply@floe.localhost>'),
  // The development mail server (maildev) the stack runs and sends to: on for local stacks, off in production.
  FLOE_DEV_MAIL: z.enum(['on', 'off']).optional(),
  // Login attempts per caller address per hour (the spec's 120; a benchmark raises it).
  FLOE_LOGIN_ATTEMPTS_PER_HOUR: z.coerce.number().int().min(1).default(120),
  // Device authorisation starts per caller address per hour (the spec's 60).
  FLOE_DEVICE_STARTS_PER_HOUR: z.coerce.number().int().min(1).default(60),
  // Mail-sending starts (sign-up, password sign-up, recovery, reset) per caller address per hour, the four together (the spec's 5 for reset starts, "shared with sign-up").
  FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR: z.coerce.number().int().min(1).default(5),
  // Organisations reserved by sign-ups and not yet activated, per caller address at a time (3).
  FLOE_PENDING_HANDLES_PER_CALLER: z.coerce.number().int().min(1).default(3),
  // One-call unverified sign-up (POST /v1/signup): on for local stacks, off (403 verification_required) in production.
  FLOE_OPEN_SIGNUP: z.enum(['true', 'false']).optional(),
  /** The OAuth authorization server's deprecated dynamic registration (POST /oauth/register); off: 403 access_denied. */
  FLOE_OAUTH_DYNAMIC_REGISTRATION: z.enum(['on', 'off']).default('on'),
  /**
   * Development stacks only: hosts (`host` for any port, or `host:port`) whose client metadata documents
   * identity fetches over http and past the private-address guard. Refused in production.
   */
  FLOE_OAUTH_METADATA_ALLOW_HOSTS: z.string().default(''),
  /** The MCP tool server's URL: the one OAuth `resource` the authorization server accepts (default {base_url}/mcp). */
  FLOE_MCP_URL: url.optional(),
  // Ingest sinks switched on or off for the whole deployment (off: the sink routes answer 404 not_found).
  FLOE_SINKS: z.enum(['on', 'off']).default('on'),
  // Whether the public gateway routes the operator routes (/v1/admin/*). Off by default ("not public by
  // default"): the gateway answers 404 as for an unknown route, and operators reach the control plane's
  // own port. The control plane refuses everyone but an operator principal either way.
  FLOE_ADMIN_ROUTES_PUBLIC: z.enum(['true', 'false']).default('false'),
  // The catalog's cache of table metadata files (text and parsed), in MiB: bounded by bytes, the least recently used going first. Size it under the catalog's container memory.
  FLOE_CATALOG_METADATA_CACHE_MB: z.coerce.number().int().min(1).max(65536).default(96),
  // Server-side scan planning: a plan listing more files than this is planned in the background (answered `submitted`),
  // and a plan of more tasks than a page holds is answered as plan tasks, one per page.
  FLOE_SCAN_PLAN_SYNC_FILES: z.coerce.number().int().min(0).default(2000),
  FLOE_SCAN_PLAN_PAGE_TASKS: z.coerce.number().int().min(1).max(100_000).default(1000),
  // How often the roller asks which sinks are due.
  FLOE_ROLLER_TICK_MS: z.coerce.number().int().min(100).default(2000),
  // The metering worker's sweep over every live catalog (spec: hourly), and how long after its
  // creation a catalog's first sample is taken (spec: about 120 s). A test stack shortens both.
  FLOE_METERING_SWEEP_SECONDS: z.coerce.number().int().min(1).default(3600),
  FLOE_METERING_FIRST_SAMPLE_SECONDS: z.coerce.number().int().min(0).default(120),
  // Table maintenance (services/maintenance-worker): the sweep's interval, and how old an unreferenced file under a table's location must be before the orphan pass removes it (3 days: writers still in flight).
  FLOE_MAINTENANCE_SWEEP_SECONDS: z.coerce.number().int().min(1).default(3600),
  FLOE_MAINTENANCE_ORPHAN_AGE_SECONDS: z.coerce.number().int().min(0).default(259_200),
  // A run's job lock (BullMQ lockDuration and stalledInterval): a replica that died leaves its job to another within about two of these. A fault test shortens it.
  FLOE_MAINTENANCE_JOB_LOCK_SECONDS: z.coerce.number().int().min(2).max(300).default(15),
  // The data-plane engine (packages/engine) of a process that writes Parquet (the maintenance worker's compaction, the roller's rolls): the only directory it may touch (default: floe-engine under the OS temp directory), its memory limit (DuckDB size syntax) and threads.
  FLOE_ENGINE_SCRATCH_DIR: z.string().min(1).optional(),
  FLOE_ENGINE_MEMORY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'a size such as 2GB or 512MiB').default('1GB'),
  FLOE_ENGINE_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  // The hosted query (POST /v1/query, services/query-worker): statements running or waiting at once across the deployment,
  // of them at most FLOE_QUERY_ORG_SHARE for one organisation (beyond either: 429 busy); statements one worker process runs at
  // once; a statement's memory (DuckDB size syntax) and threads; the bytes of table files a worker keeps on disk between statements.
  FLOE_QUERY_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(8),
  FLOE_QUERY_ORG_SHARE: z.coerce.number().int().min(1).max(1000).default(4),
  FLOE_QUERY_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  FLOE_QUERY_MEMORY_LIMIT: z.string().regex(/^\d+(\.\d+)?\s*(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB)$/i, 'a size such as 2GB or 512MiB').default('512MB'),
  FLOE_QUERY_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  FLOE_QUERY_FILE_CACHE_BYTES: z.coerce.number().int().min(0).default(2 * 1024 ** 3),
  // Fault tests only: the metering worker exits once its first measure job's report is recorded.
  FLOE_METERING_CRASH_AT: z.enum(['after_report']).optional(),
  // Fault tests only: the roller process exits at this stage of a roll.
  FLOE_ROLLER_CRASH_AT: z.enum(['after_files', 'after_commit', 'before_mark']).optional(),
  // Fault tests only: the maintenance worker exits at this stage of a run (compaction's new files written; an expiry committed; an expiry's removals half done).
  FLOE_MAINTENANCE_CRASH_AT: z.enum(['after_files', 'after_commit', 'mid_expiry']).optional(),
  // Soft delete: how long a deleted catalog can be restored before teardown removes its tables and storage (a day).
  FLOE_WAREHOUSE_DELETE_GRACE_SECONDS: z.coerce.number().int().min(0).default(86_400),
  // Fault tests only: the teardown worker exits once a teardown has reached this step.
  FLOE_TEARDOWN_CRASH_AT: z.enum(['after_tables', 'after_identities']).optional(),
  FLOE_LOG_LEVEL: z.enum(['error', 'warn', 'info', 'http', 'debug']).default('info'),
  // Comma-separated issuers of external OpenID Connect providers whose tokens act as the person their subject is linked to (Authentication 1),
  // and the audiences such a token must name one of (default: FLOE_BASE_URL).
  FLOE_TRUSTED_ISSUERS: z.string().default(''),
  FLOE_TRUSTED_AUDIENCES: z.string().default(''),
  // Sign-in with OpenID Connect providers: a JSON array of {id, name, issuer, client_id, client_secret} (Google: issuer https://accounts.google.com).
  FLOE_SIGNIN_PROVIDERS: z.string().default('[]').transform((v, ctx) => {
    let raw: unknown;
    try {
      raw = JSON.parse(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'not JSON: a JSON array of {id, name, issuer, client_id, client_secret}' });
      return z.NEVER;
    }
    const parsed = SignInProvidersSchema.safeParse(raw);
    if (!parsed.success) {
      ctx.addIssue({ code: 'custom', message: parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ') });
      return z.NEVER;
    }
    return parsed.data;
  }),
  // The development identity provider (oidc-provider) the stack runs, as maildev is for mail: on for local stacks, off in production.
  // When on, it is a sign-in provider (id `dev`) and a trusted issuer.
  FLOE_DEV_IDP: z.enum(['on', 'off']).optional(),
  // Passkeys (WebAuthn): the relying party id and the comma-separated origins a browser may sign from
  // (default: FLOE_BASE_URL's host and origin; see webAuthnOf), and whether a passkey signs in without a password.
  FLOE_WEBAUTHN_RP_ID: z.string().min(1).optional(),
  FLOE_WEBAUTHN_ORIGINS: z.string().optional(),
  FLOE_PASSKEY_LOGIN: z.enum(['true', 'false']).default('true'),
  // The DNS servers the control plane asks for a domain's TXT proof (POST /v1/orgs/{org_id}/domains/{domain}/verify):
  // comma-separated `address` or `address:port` (IPv6 as `[address]:port`), addresses not names. Default: the system's resolvers.
  FLOE_DNS_SERVERS: z.string().default('').transform((v, ctx) => {
    const servers = v.split(',').map((s) => s.trim()).filter(Boolean);
    for (const s of servers) {
      if (!dnsServerOk(s)) {
        ctx.addIssue({ code: 'custom', message: `${JSON.stringify(s)} is not an IP address, address:port or [IPv6]:port` });
        return z.NEVER;
      }
    }
    return servers;
  }),
  // How long a rotated-out signing key stays published: the longest token life
  // (catalog tokens, 3600 s) plus slack, so no token outlives its key.
  FLOE_KEY_OVERLAP_SECONDS: z.coerce.number().int().min(0).default(3600 + 300),
  // How long an identity replica keeps using the signer it loaded before looking for a newer key.
  FLOE_SIGNER_CACHE_SECONDS: z.coerce.number().int().min(0).default(30),
});

export type Env = z.infer<typeof EnvSchema>;

export interface FloeConfig {
  env: Env['FLOE_ENV'];
  region: string;
  provider: string;
  ports: {
    gateway: number; identity: number; controlPlane: number; ingest: number; ingestInternal: number; mcp: number; catalog: number; s3: number; teardownHealth: number; rollerHealth: number; meteringHealth: number;
    maintenanceHealth: number; queryHealth: number; mailSmtp: number; mailWeb: number; devIdp: number;
  };
  baseUrl: string;
  catalogUrl: string;
  s3Url: string;
  ingestUrl: string;
  /** One address per service: of a list of replicas, the first (calls between services use `upstreams`, spread and failed over). */
  services: { identity: string; controlPlane: string; catalog: string; ingest: string; ingestInternal: string; mcp: string };
  /** Every replica of each service (one URL, or a FLOE_*_URL list): the gateway and the services that call each other spread requests across them (@floe/http Replicas). */
  upstreams: { identity: string[]; controlPlane: string[]; ingest: string[]; mcp: string[]; ingestInternal: string[] };
  /** The object store as Floe's own code reaches it, with the admin user that owns every bucket. */
  s3: { endpoint: string; region: string; adminAccessKey: string | undefined; adminSecretKey: string | undefined };
  databaseUrl: string;
  redisUrl: string;
  redisPrefix: string;
  bootstrapSecret: string | undefined;
  credentialKey: string | undefined;
  /** FLOE_DATA_KEYS, the sealing key first; empty when unset. */
  dataKeys: DataKey[];
  openSignup: boolean;
  /** Login attempts allowed per caller address per hour. */
  loginAttemptsPerHour: number;
  /** Device authorisation starts allowed per caller address per hour. */
  deviceStartsPerHour: number;
  /** Mail-sending starts (sign-up, password sign-up, recovery, reset, together) allowed per caller address per hour. */
  mailStartsPerCallerPerHour: number;
  /** Pending organisation reservations (handles held by unfinished sign-ups) allowed per caller address at a time. */
  pendingHandlesPerCaller: number;
  /** Outgoing mail: the SMTP server (null: logged, `delivery: log`), the sender, and the development mail server when the stack runs one. */
  mail: { smtpUrl: string | null; from: string; devServer: boolean; inboxUrl: string | null };
  sinksEnabled: boolean;
  /** The OAuth authorization server for remote tool hosts: dynamic registration on or off, the dev-only metadata hosts, the resource. */
  oauth: { dynamicRegistration: boolean; metadataAllowHosts: string[]; mcpUrl: string };
  /** FLOE_ADMIN_ROUTES_PUBLIC: the gateway routes /v1/admin/* (default false: 404 there). */
  adminRoutesPublic: boolean;
  /** The metering worker's sweep interval and the delay of a new catalog's first sample, in seconds. */
  metering: { sweepSeconds: number; firstSampleSeconds: number; crashAt: 'after_report' | undefined };
  roller: { tickMs: number; crashAt: 'after_files' | 'after_commit' | 'before_mark' | undefined };
  /** Table maintenance: the sweep's interval, and the age an unreferenced file needs before the orphan pass removes it. */
  maintenance: { sweepSeconds: number; orphanAgeSeconds: number; jobLockSeconds: number; crashAt: 'after_files' | 'after_commit' | 'mid_expiry' | undefined };
  /** The catalog's metadata file cache, in bytes. */
  catalogMetadataCacheBytes: number;
  /** Scan planning: the most files a plan may list and still be planned while the request waits; file scan tasks per page. */
  scanPlanning: { syncFiles: number; pageTasks: number };
  /** The data-plane engine's scratch directory (null: the OS temp directory's floe-engine), memory limit and threads. */
  engine: { scratchDir: string | null; memoryLimit: string; threads: number };
  /** The hosted query: the deployment's and an organisation's statements at once, one worker's, a statement's memory and threads, and a worker's file cache. */
  query: { concurrency: number; orgShare: number; workerConcurrency: number; memoryLimit: string; threads: number; fileCacheBytes: number };
  /** Catalog deletion: the grace period before teardown (restore works within it), and the fault tests' crash point. */
  teardown: { graceSeconds: number; crashAt: 'after_tables' | 'after_identities' | undefined };
  listenHost: string;
  /** FLOE_TRUST_PROXY: addresses or CIDRs of the proxies whose X-Forwarded-For is read; empty for none. */
  trustProxy: string[];
  logLevel: Env['FLOE_LOG_LEVEL'];
  /** Issuers whose bearer tokens act as the person their subject is linked to, each with the audiences a token must name one of. */
  trustedIssuers: TrustedIssuer[];
  /** Sign-in with OpenID Connect providers, and the origins a browser may start one from (the pages' origins). */
  signIn: { providers: SignInProvider[]; origins: string[] };
  /** The development identity provider the stack runs (null: none); also a sign-in provider and a trusted issuer. */
  devIdentityProvider: DevIdentityProvider | null;
  /** Passkeys: the relying party, the origins a browser may sign from, and whether a passkey alone signs in. */
  webauthn: { rpId: string; rpName: string; origins: string[]; passkeyLogin: boolean };
  /** FLOE_DNS_SERVERS, in the form node:dns setServers takes; empty: the system's resolvers. */
  dnsServers: string[];
  keyOverlapSeconds: number;
  signerCacheSeconds: number;
  /** Request body limit of control-plane routes: the spec's 1 MB. */
  bodyLimitBytes: number;
  /** The service's own short brand word, reserved wherever the spec reserves it. */
  brandWord: string;
}

export interface TrustedIssuer {
  issuer: string;
  audiences: string[];
}

export interface SignInProvider {
  /** The provider's name in routes (`/v1/auth/oidc/{id}/start`). */
  id: string;
  name: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
}

export interface DevIdentityProvider {
  issuer: string;
  port: number;
  /** The sign-in client Floe uses (a confidential client, as with Google). */
  signIn: { clientId: string; clientSecret: string };
  /** Where a sign-in may return: `/app/login` on each origin a browser may start one from. */
  redirectUris: string[];
}

/** The development identity provider's sign-in client: a development stack's fixed values, never a production secret. */
export const DEV_IDP_CLIENT = { clientId: 'floe-dev-sign-in', clientSecret: 'floe-development-client-secret' } as const;

/** Where a provider's sign-in returns: the login page of the origin it started from. */
export const signInRedirectUri = (origin: string) => `${origin}/app/login`;

export class ConfigError extends Error {}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): FloeConfig {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`invalid environment:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  const local = (p: number) => `http://${e.FLOE_HOST}:${p}`;
  const baseUrl = trimSlash(e.FLOE_BASE_URL ?? local(e.FLOE_GATEWAY_PORT));
  const upstreams = {
    identity: urlList(e.FLOE_IDENTITY_URL ?? local(e.FLOE_IDENTITY_PORT)),
    controlPlane: urlList(e.FLOE_CONTROL_PLANE_URL ?? local(e.FLOE_CONTROL_PLANE_PORT)),
    ingest: urlList(e.FLOE_INGEST_GATEWAY_URL ?? local(e.FLOE_INGEST_PORT)),
    mcp: urlList(e.FLOE_MCP_SERVER_URL ?? local(e.FLOE_MCP_PORT)),
    ingestInternal: urlList(e.FLOE_INGEST_INTERNAL_URL ?? local(e.FLOE_INGEST_INTERNAL_PORT)),
  };
  const catalogUrl = trimSlash(e.FLOE_CATALOG_URL ?? local(e.FLOE_CATALOG_PORT));
  const mcpUrl = trimSlash(e.FLOE_MCP_URL ?? `${baseUrl}/mcp`);
  // The public addresses must agree with each other (public-urls.ts says how), or no service starts.
  const conflicts = publicUrlConflicts({
    base: { name: 'FLOE_BASE_URL', value: baseUrl, derivedFrom: e.FLOE_BASE_URL ? undefined : 'FLOE_HOST and FLOE_GATEWAY_PORT' },
    catalog: { name: 'FLOE_CATALOG_URL', value: catalogUrl, derivedFrom: e.FLOE_CATALOG_URL ? undefined : 'FLOE_HOST and FLOE_CATALOG_PORT' },
    mcp: { name: 'FLOE_MCP_URL', value: mcpUrl, derivedFrom: e.FLOE_MCP_URL ? undefined : 'FLOE_BASE_URL' },
  });
  if (conflicts.length) throw new ConfigError(`invalid environment:\n${conflicts.map((c) => `  ${c}`).join('\n')}`);
  const webauthn = webAuthnOf(e, baseUrl);
  const metadataAllowHosts = e.FLOE_OAUTH_METADATA_ALLOW_HOSTS.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  if (metadataAllowHosts.length && e.FLOE_ENV === 'production') {
    throw new ConfigError('invalid environment:\n  FLOE_OAUTH_METADATA_ALLOW_HOSTS: lets client metadata past the private-address guard; development stacks only');
  }
  return {
    env: e.FLOE_ENV,
    region: e.FLOE_REGION,
    provider: e.FLOE_PROVIDER,
    ports: {
      gateway: e.FLOE_GATEWAY_PORT,
      identity: e.FLOE_IDENTITY_PORT,
      controlPlane: e.FLOE_CONTROL_PLANE_PORT,
      ingest: e.FLOE_INGEST_PORT,
      ingestInternal: e.FLOE_INGEST_INTERNAL_PORT,
      mcp: e.FLOE_MCP_PORT,
      catalog: e.FLOE_CATALOG_PORT,
      s3: e.FLOE_S3_PORT,
      teardownHealth: e.FLOE_TEARDOWN_HEALTH_PORT,
      meteringHealth: e.FLOE_METERING_HEALTH_PORT,
      rollerHealth: e.FLOE_ROLLER_HEALTH_PORT,
      maintenanceHealth: e.FLOE_MAINTENANCE_HEALTH_PORT,
      queryHealth: e.FLOE_QUERY_HEALTH_PORT,
      mailSmtp: e.FLOE_MAIL_SMTP_PORT,
      mailWeb: e.FLOE_MAIL_WEB_PORT,
      devIdp: e.FLOE_DEV_IDP_PORT,
    },
    baseUrl,
    catalogUrl,
    s3Url: trimSlash(e.FLOE_S3_URL ?? local(e.FLOE_S3_PORT)),
    ingestUrl: trimSlash(e.FLOE_INGEST_URL ?? local(e.FLOE_INGEST_PORT)),
    services: {
      identity: upstreams.identity[0],
      controlPlane: upstreams.controlPlane[0],
      catalog: trimSlash(e.FLOE_CATALOG_INTERNAL_URL ?? e.FLOE_CATALOG_URL ?? local(e.FLOE_CATALOG_PORT)),
      ingest: upstreams.ingest[0],
      ingestInternal: upstreams.ingestInternal[0],
      mcp: upstreams.mcp[0],
    },
    upstreams,
    s3: {
      endpoint: trimSlash(e.FLOE_S3_INTERNAL_URL ?? e.FLOE_S3_URL ?? local(e.FLOE_S3_PORT)),
      region: e.FLOE_S3_REGION,
      adminAccessKey: e.FLOE_S3_ADMIN_ACCESS_KEY,
      adminSecretKey: e.FLOE_S3_ADMIN_SECRET_KEY,
    },
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.FLOE_REDIS_PREFIX,
    bootstrapSecret: e.FLOE_BOOTSTRAP_SECRET,
    credentialKey: e.FLOE_CREDENTIAL_KEY ?? e.FLOE_BOOTSTRAP_SECRET,
    dataKeys: e.FLOE_DATA_KEYS,
    openSignup: e.FLOE_OPEN_SIGNUP ? e.FLOE_OPEN_SIGNUP === 'true' : e.FLOE_ENV !== 'production',
    mail: mailOf(e, local),
    loginAttemptsPerHour: e.FLOE_LOGIN_ATTEMPTS_PER_HOUR,
    deviceStartsPerHour: e.FLOE_DEVICE_STARTS_PER_HOUR,
    mailStartsPerCallerPerHour: e.FLOE_MAIL_STARTS_PER_CALLER_PER_HOUR,
    pendingHandlesPerCaller: e.FLOE_PENDING_HANDLES_PER_CALLER,
    sinksEnabled: e.FLOE_SINKS === 'on',
    oauth: { dynamicRegistration: e.FLOE_OAUTH_DYNAMIC_REGISTRATION === 'on', metadataAllowHosts, mcpUrl },
    adminRoutesPublic: e.FLOE_ADMIN_ROUTES_PUBLIC === 'true',
    metering: { sweepSeconds: e.FLOE_METERING_SWEEP_SECONDS, firstSampleSeconds: e.FLOE_METERING_FIRST_SAMPLE_SECONDS, crashAt: e.FLOE_METERING_CRASH_AT },
    roller: { tickMs: e.FLOE_ROLLER_TICK_MS, crashAt: e.FLOE_ROLLER_CRASH_AT },
    catalogMetadataCacheBytes: e.FLOE_CATALOG_METADATA_CACHE_MB * 1024 * 1024,
    scanPlanning: { syncFiles: e.FLOE_SCAN_PLAN_SYNC_FILES, pageTasks: e.FLOE_SCAN_PLAN_PAGE_TASKS },
    maintenance: { sweepSeconds: e.FLOE_MAINTENANCE_SWEEP_SECONDS, orphanAgeSeconds: e.FLOE_MAINTENANCE_ORPHAN_AGE_SECONDS, jobLockSeconds: e.FLOE_MAINTENANCE_JOB_LOCK_SECONDS, crashAt: e.FLOE_MAINTENANCE_CRASH_AT },
    engine: { scratchDir: e.FLOE_ENGINE_SCRATCH_DIR ?? null, memoryLimit: e.FLOE_ENGINE_MEMORY_LIMIT, threads: e.FLOE_ENGINE_THREADS },
    query: {
      concurrency: e.FLOE_QUERY_CONCURRENCY, orgShare: e.FLOE_QUERY_ORG_SHARE, workerConcurrency: e.FLOE_QUERY_WORKER_CONCURRENCY,
      memoryLimit: e.FLOE_QUERY_MEMORY_LIMIT, threads: e.FLOE_QUERY_THREADS, fileCacheBytes: e.FLOE_QUERY_FILE_CACHE_BYTES,
    },
    teardown: { graceSeconds: e.FLOE_WAREHOUSE_DELETE_GRACE_SECONDS, crashAt: e.FLOE_TEARDOWN_CRASH_AT },
    listenHost: e.FLOE_LISTEN_HOST,
    trustProxy: e.FLOE_TRUST_PROXY,
    logLevel: e.FLOE_LOG_LEVEL,
    ...identityProvidersOf(e, baseUrl, webauthn.origins, local),
    webauthn,
    dnsServers: e.FLOE_DNS_SERVERS,
    keyOverlapSeconds: e.FLOE_KEY_OVERLAP_SECONDS,
    signerCacheSeconds: e.FLOE_SIGNER_CACHE_SECONDS,
    bodyLimitBytes: 1_000_000,
    brandWord: 'floe',
  };
}

/** `1.2.3.4`, `1.2.3.4:53`, `::1`, `[::1]` or `[::1]:53`: what node:dns setServers takes (it takes no names). */
function dnsServerOk(s: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(s);
  const v4 = /^([\d.]+)(?::(\d{1,5}))?$/.exec(s);
  const [host, port] = bracketed ? [bracketed[1], bracketed[2]] : v4 ? [v4[1], v4[2]] : [s, undefined];
  if (isIP(host) !== (v4 ? 4 : 6)) return false;
  return port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
}

/**
 * Passkeys' relying party: by default FLOE_BASE_URL's host and origin. A
 * relying party id cannot be an IP address, so a stack on a loopback address
 * (the local stack's http://127.0.0.1:8080) is `localhost`, and its pages
 * sign passkeys from http://localhost:<port>.
 */
function webAuthnOf(e: Env, baseUrl: string): FloeConfig['webauthn'] {
  const base = new URL(baseUrl);
  const host = base.hostname.replace(/^\[|\]$/g, '');
  const loopback = isIP(host) !== 0 && (host.startsWith('127.') || host === '::1');
  const rpId = e.FLOE_WEBAUTHN_RP_ID ?? (loopback ? 'localhost' : host);
  const local = loopback ? `${base.protocol}//localhost${base.port ? `:${base.port}` : ''}` : null;
  const origins = e.FLOE_WEBAUTHN_ORIGINS
    ? e.FLOE_WEBAUTHN_ORIGINS.split(',').map((o) => trimSlash(o.trim())).filter(Boolean)
    : [local ?? base.origin];
  return { rpId, rpName: 'Floe', origins, passkeyLogin: e.FLOE_PASSKEY_LOGIN === 'true' };
}

/**
 * Outside identities: the trusted issuers, the sign-in providers and the
 * origins a sign-in may start from (the base URL's and the passkeys'), and
 * the development identity provider, which a local stack runs and counts as
 * both a sign-in provider (`dev`) and a trusted issuer.
 */
function identityProvidersOf(e: Env, baseUrl: string, pageOrigins: string[], local: (p: number) => string) {
  const origins = [...new Set([new URL(baseUrl).origin, ...pageOrigins])];
  const devOn = e.FLOE_DEV_IDP ? e.FLOE_DEV_IDP === 'on' : e.FLOE_ENV !== 'production';
  const devIdentityProvider: DevIdentityProvider | null = devOn
    ? { issuer: local(e.FLOE_DEV_IDP_PORT), port: e.FLOE_DEV_IDP_PORT, signIn: { ...DEV_IDP_CLIENT }, redirectUris: origins.map(signInRedirectUri) }
    : null;
  // Issuers exactly as written: an ID token's `iss` and a discovery document's `issuer` are compared with them character for character (some end in a slash).
  const providers: SignInProvider[] = e.FLOE_SIGNIN_PROVIDERS.map((p) => ({ id: p.id, name: p.name, issuer: p.issuer, clientId: p.client_id, clientSecret: p.client_secret }));
  if (devIdentityProvider && !providers.some((p) => p.id === 'dev')) {
    providers.push({ id: 'dev', name: 'the development identity provider', issuer: devIdentityProvider.issuer, ...devIdentityProvider.signIn });
  }
  const audiences = e.FLOE_TRUSTED_AUDIENCES.split(',').map((s) => s.trim()).filter(Boolean);
  const issuers = e.FLOE_TRUSTED_ISSUERS.split(',').map((s) => s.trim()).filter(Boolean);
  if (devIdentityProvider && !issuers.includes(devIdentityProvider.issuer)) issuers.push(devIdentityProvider.issuer);
  return {
    trustedIssuers: issuers.map((issuer) => ({ issuer, audiences: audiences.length ? audiences : [baseUrl] })),
    signIn: { providers, origins },
    devIdentityProvider,
  };
}

function trimSlash(u: string): string {
  return u.replace(/\/+$/, '');
}

/** Words no handle, catalog name or other user-chosen public name may take. */
/** The Terms in force: every sign-up shows them and records their version when accepted (spec: Terms). */
export const TERMS = { version: '2026-09-01', url: '/legal/terms', privacy_url: '/legal/privacy' } as const;

export const RESERVED_WORDS: readonly string[] = [
  'app', 'api', 'docs', 'legal', 'admin', 'www', 's3', 'catalog', 'auth', 'floe',
];

/** Outgoing mail: a stack with the development mail server sends to it unless FLOE_SMTP_URL names another server. */
function mailOf(e: Env, local: (p: number) => string): FloeConfig['mail'] {
  const devServer = e.FLOE_DEV_MAIL ? e.FLOE_DEV_MAIL === 'on' : e.FLOE_ENV !== 'production';
  const smtpUrl = e.FLOE_SMTP_URL ?? (devServer ? `smtp://127.0.0.1:${e.FLOE_MAIL_SMTP_PORT}` : null);
  return { smtpUrl, from: e.FLOE_MAIL_FROM, devServer, inboxUrl: devServer ? local(e.FLOE_MAIL_WEB_PORT) : null };
}

/** A FLOE_*_URL setting's URLs: one, or a service's replicas separated by commas. */
function urlList(v: string): string[] {
  return v.split(',').map((u) => trimSlash(u.trim())).filter(Boolean);
}
