// A throwaway stack for tests and benchmarks: its own database, Redis key
// prefix, data folder and free ports, so it never collides with a developer's
// `npm start` or another run; removed without trace by stopPrivateStack.
//
// A private stack runs detached, recorded by pid in its stack.json, and
// nothing restarts a deployable that exits: fault tests stop or kill
// deployables on purpose and run their own in their place (on the same port,
// some of them), which a supervisor would fight. A test of the supervision
// itself runs `npm start`'s own code in the foreground instead, on the
// settings privateStackPlan gives (tests/fault/stack-supervision.test.ts).
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { Redis } from 'ioredis';
import pg from 'pg';
import { loadConfig } from '@floe/config';
import { dropDatabase } from '@floe/db';
import { RgwStorage } from '@floe/storage';
import { freePort, freePorts } from './infra';
import type { ReplicaPlan } from './deployables';
import { readState, startStack, stopStack, type StackState } from './stack';
import { stackPaths } from './stack-env';

/** The port setting of each deployable. */
const PORT_SETTINGS: Record<string, string> = {
  gateway: 'FLOE_GATEWAY_PORT',
  identity: 'FLOE_IDENTITY_PORT',
  'control-plane': 'FLOE_CONTROL_PLANE_PORT',
  'ingest-gateway': 'FLOE_INGEST_PORT',
  'mcp-server': 'FLOE_MCP_PORT',
  catalog: 'FLOE_CATALOG_PORT',
  'teardown-worker': 'FLOE_TEARDOWN_HEALTH_PORT',
  'roller-worker': 'FLOE_ROLLER_HEALTH_PORT',
  'metering-worker': 'FLOE_METERING_HEALTH_PORT',
  'maintenance-worker': 'FLOE_MAINTENANCE_HEALTH_PORT',
  'query-worker': 'FLOE_QUERY_HEALTH_PORT',
  mail: 'FLOE_MAIL_WEB_PORT',
  'identity-provider': 'FLOE_DEV_IDP_PORT',
};

/** A private stack's environment: its own settings over the caller's, addresses derived from its own ports. */
function privateEnv(own: NodeJS.ProcessEnv, extraEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, FLOE_ENV: 'test', ...own, ...extraEnv };
  for (const k of ['FLOE_BASE_URL', 'FLOE_IDENTITY_URL', 'FLOE_CONTROL_PLANE_URL', 'FLOE_CATALOG_URL', 'FLOE_S3_URL', 'FLOE_INGEST_URL', 'FLOE_INGEST_GATEWAY_URL', 'FLOE_INGEST_INTERNAL_URL', 'FLOE_MCP_URL', 'FLOE_MCP_SERVER_URL', 'FLOE_SMTP_URL']) {
    if (!(k in extraEnv) && !(k in own)) delete env[k];
  }
  return env;
}

export interface PrivateStackPlan {
  /** Where its stack.json will be. */
  stateFile: string;
  /** The environment of a process that runs it: its own settings (and FLOE_DATA_DIR, its data folder) over the caller's. */
  env: NodeJS.ProcessEnv;
  database_url: string;
  redis_prefix: string;
  /** With `replicas: 2`: the second processes and the balancers (see replicaPlan). */
  replicas?: ReplicaPlan;
}

export interface PrivateStackOptions {
  /**
   * 2: two processes of every Floe deployable but the gateway (the HTTP
   * services on two ports each, the workers with two health ports), as a
   * deployment with replicas runs them: the gateway spreads its requests
   * across both (FLOE_*_URL lists), balancers do for {catalog_url} and
   * {ingest_url}; Postgres and Redis are shared. Default 1.
   */
  replicas?: 1 | 2;
}

/** The second process of each deployable: the setting of each of its ports. */
const SECOND_PORTS: Record<string, string[]> = {
  catalog: ['FLOE_CATALOG_PORT'],
  identity: ['FLOE_IDENTITY_PORT'],
  'control-plane': ['FLOE_CONTROL_PLANE_PORT'],
  'ingest-gateway': ['FLOE_INGEST_PORT', 'FLOE_INGEST_INTERNAL_PORT'],
  'mcp-server': ['FLOE_MCP_PORT'],
  'roller-worker': ['FLOE_ROLLER_HEALTH_PORT'],
  'metering-worker': ['FLOE_METERING_HEALTH_PORT'],
  'maintenance-worker': ['FLOE_MAINTENANCE_HEALTH_PORT'],
  'query-worker': ['FLOE_QUERY_HEALTH_PORT'],
  'teardown-worker': ['FLOE_TEARDOWN_HEALTH_PORT'],
};

const REPLICA_PORTS = Object.values(SECOND_PORTS).flat().length + 2;

/**
 * The second processes and the two balancers on `ports` (REPLICA_PORTS of them); `own` gains the
 * public catalog and ingest URLs (the balancers) and the lists of replicas per
 * service the gateway and the services calling each other spread requests across.
 */
function replicaPlan(own: NodeJS.ProcessEnv, ports: number[]): ReplicaPlan {
  const local = (port: string | number | undefined) => `http://127.0.0.1:${port}`;
  const second: Record<string, NodeJS.ProcessEnv> = {};
  let i = 0;
  for (const [name, names] of Object.entries(SECOND_PORTS)) {
    second[name] = Object.fromEntries(names.map((setting) => [setting, String(ports[i++])]));
  }
  const [catalogPort, ingestPort] = ports.slice(i);
  const both = (name: string, setting: string) => `${local(own[setting])},${local(second[name][setting])}`;
  own.FLOE_CATALOG_URL = local(catalogPort);
  own.FLOE_INGEST_URL = local(ingestPort);
  own.FLOE_IDENTITY_URL = both('identity', 'FLOE_IDENTITY_PORT');
  own.FLOE_CONTROL_PLANE_URL = both('control-plane', 'FLOE_CONTROL_PLANE_PORT');
  own.FLOE_INGEST_GATEWAY_URL = both('ingest-gateway', 'FLOE_INGEST_PORT');
  own.FLOE_INGEST_INTERNAL_URL = both('ingest-gateway', 'FLOE_INGEST_INTERNAL_PORT');
  own.FLOE_MCP_SERVER_URL = both('mcp-server', 'FLOE_MCP_PORT');
  return {
    second,
    balancers: [
      { name: 'catalog-balancer', after: 'catalog', port: catalogPort, targets: both('catalog', 'FLOE_CATALOG_PORT').split(',') },
      { name: 'ingest-balancer', after: 'ingest-gateway', port: ingestPort, targets: own.FLOE_INGEST_GATEWAY_URL.split(',') },
    ],
  };
}

/** The settings of a new private stack, for startPrivateStack or for `scripts/stack.ts start` run with `env`. */
export async function privateStackPlan(label: string, extraEnv: NodeJS.ProcessEnv = {}, opts: PrivateStackOptions = {}): Promise<PrivateStackPlan> {
  const id = randomBytes(4).toString('hex');
  const paths = stackPaths(`.data/${label}-${id}`);
  const own: NodeJS.ProcessEnv = {
    DATABASE_URL: `postgresql://postgres@127.0.0.1:5432/floe_${label}_${id}`,
    FLOE_REDIS_PREFIX: `floe:${label}:${id}:`,
    FLOE_BOOTSTRAP_SECRET: randomBytes(24).toString('hex'),
  };
  const settings = [...Object.values(PORT_SETTINGS), 'FLOE_MAIL_SMTP_PORT', 'FLOE_INGEST_INTERNAL_PORT'];
  // One call for every port, so none is handed out twice.
  const ports = await freePorts(settings.length + (opts.replicas === 2 ? REPLICA_PORTS : 0));
  settings.forEach((setting, i) => { own[setting] = String(ports[i]); });
  const replicas = opts.replicas === 2 ? replicaPlan(own, ports.slice(settings.length)) : undefined;
  return {
    stateFile: paths.stateFile,
    env: { ...privateEnv(own, extraEnv), FLOE_DATA_DIR: paths.dataDir },
    database_url: own.DATABASE_URL!,
    redis_prefix: own.FLOE_REDIS_PREFIX!,
    ...(replicas ? { replicas } : {}),
  };
}

export async function startPrivateStack(label: string, extraEnv: NodeJS.ProcessEnv = {}, opts: PrivateStackOptions = {}): Promise<{ state: StackState; stateFile: string }> {
  const plan = await privateStackPlan(label, extraEnv, opts);
  const paths = stackPaths(dirname(plan.stateFile));
  const { state } = await startStack(paths, { detached: true, baseEnv: plan.env, replicas: plan.replicas });
  return { state, stateFile: plan.stateFile };
}

/**
 * Stops a private stack's deployables and starts them again on the same
 * database, Redis prefix, secrets, data keys and ports, as an upgrade does:
 * the start migrates the database first.
 */
export async function restartPrivateStack(stateFile: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<StackState> {
  const paths = stackPaths(dirname(stateFile));
  const old = readState(paths);
  if (!old) throw new Error(`no private stack recorded in ${stateFile}`);
  // Its second processes' ports and balancers are not in the record's settings: not built (no test restarts one yet).
  if (old.replicas) throw new Error('restartPrivateStack: a stack with replicas cannot be restarted');
  await stopStack(paths);
  const own: NodeJS.ProcessEnv = {
    DATABASE_URL: old.database_url,
    FLOE_REDIS_PREFIX: old.redis_prefix,
    FLOE_BOOTSTRAP_SECRET: old.bootstrap_secret,
    FLOE_DATA_KEYS: old.data_keys,
  };
  for (const [name, setting] of Object.entries(PORT_SETTINGS)) if (old.services[name]) own[setting] = new URL(old.services[name].url).port;
  if (old.smtp_url) own.FLOE_MAIL_SMTP_PORT = new URL(old.smtp_url).port;
  own.FLOE_INGEST_INTERNAL_PORT = old.ingest_internal_url ? new URL(old.ingest_internal_url).port : String(await freePort());
  try {
    const { state } = await startStack(paths, { detached: true, baseEnv: privateEnv(own, extraEnv) });
    return state;
  } catch (err) {
    // Put the record back, so stopPrivateStack still finds the database and Redis keys to remove.
    writeFileSync(paths.stateFile, `${JSON.stringify(old, null, 2)}\n`, { mode: 0o600 });
    throw err;
  }
}

/** The settings a further process needs to work as part of a running private stack (a test's or bench's own roller). */
export function joinPrivateStackEnv(state: StackState): NodeJS.ProcessEnv {
  return {
    DATABASE_URL: state.database_url,
    FLOE_REDIS_PREFIX: state.redis_prefix,
    FLOE_BOOTSTRAP_SECRET: state.bootstrap_secret,
    FLOE_DATA_KEYS: state.data_keys,
    // A joining worker mints catalog tokens itself: their issuer and audience are the stack's.
    FLOE_BASE_URL: state.base_url,
    FLOE_CATALOG_URL: state.catalog_url,
    FLOE_CONTROL_PLANE_URL: state.services['control-plane'].url,
    FLOE_IDENTITY_URL: state.services.identity.url,
    FLOE_CATALOG_INTERNAL_URL: state.catalog_url,
    FLOE_S3_URL: state.s3_url,
  };
}

export async function stopPrivateStack(stateFile: string, keepFiles = false): Promise<void> {
  const paths = stackPaths(dirname(stateFile));
  const state = readState(paths);
  await stopStack(paths);
  if (state) await removePrivateStack({ stateFile, database_url: state.database_url, redis_prefix: state.redis_prefix }, keepFiles);
  else if (!keepFiles) rmSync(paths.dataDir, { recursive: true, force: true });
}

/**
 * Removes what a stopped private stack leaves: its warehouses' storage, its
 * database and Redis keys, and (unless keepFiles) its data folder. For a
 * stack whose record is gone (a foreground stack removes its own on the way
 * down), the plan it was started from says where they are.
 */
export async function removePrivateStack(plan: Pick<PrivateStackPlan, 'stateFile' | 'database_url' | 'redis_prefix'>, keepFiles = false): Promise<void> {
  await removeStackStorage(plan.database_url);
  await dropDatabase(plan.database_url);
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${plan.redis_prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
  if (!keepFiles) rmSync(dirname(plan.stateFile), { recursive: true, force: true });
}

/**
 * Removes the buckets, storage identities and roles of every warehouse the
 * stack's database records. The stack made them and nothing else would
 * remove them (deleting a catalog is not built yet): left behind, each run
 * added about a hundred buckets to the shared store until its admin user's
 * bucket limit refused every create.
 */
async function removeStackStorage(databaseUrl: string): Promise<void> {
  const { s3 } = loadConfig();
  if (!s3.adminAccessKey || !s3.adminSecretKey) return;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 1 });
  let rows: Array<{ table_bucket: string; blob_bucket: string; storage_uid: string; storage_ro_uid: string; role_name: string }>;
  try {
    rows = (await pool.query(`SELECT table_bucket, blob_bucket, storage_uid, storage_ro_uid, role_name FROM warehouses`)).rows;
  } catch {
    return; // a stack that never migrated holds no warehouses
  } finally {
    await pool.end();
  }
  const store = new RgwStorage({ endpoint: s3.endpoint, region: s3.region, adminAccessKey: s3.adminAccessKey, adminSecretKey: s3.adminSecretKey });
  const quietly = <T>(step: Promise<T>) => step.catch(() => undefined);
  const queue = [...rows];
  // A few at a time: the store is shared with whatever runs next.
  await Promise.all(Array.from({ length: 6 }, async () => {
    for (let w = queue.shift(); w; w = queue.shift()) {
      await quietly(store.removeBucket(w.table_bucket));
      await quietly(store.removeBucket(w.blob_bucket));
      if (w.storage_uid) await quietly(store.deleteIdentity(w.storage_uid));
      if (w.storage_ro_uid) await quietly(store.deleteIdentity(w.storage_ro_uid));
      if (w.role_name) await quietly(store.deleteRole(w.role_name));
    }
  }));
}
