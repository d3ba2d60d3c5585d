import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { ensureDatabase, migrateDatabase } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { loadConfig, type FloeConfig } from '@floe/config';
import { cephInfo, ensureCeph, stopCeph } from './ceph';
import { BALANCER, DEPLOYABLES, type ReplicaPlan } from './deployables';
import { ensurePostgres, ensureRedis, redact } from './infra';
import { alive, healthy, lastLines, startDeployable, stopPid, waitHealthy, type Running } from './processes';
import { stackEnvironment, type StackPaths } from './stack-env';

/** `.data/stack.json`: how tools outside the code find a running stack. */
export interface StackState {
  base_url: string;
  catalog_url: string;
  s3_url: string;
  ingest_url: string;
  /** The ingest gateway's private listener (its /internal routes); absent in a record written before it existed. */
  ingest_internal_url?: string;
  /** The MCP tool server's public URL (the OAuth resource); absent in a record written before it existed. */
  mcp_url?: string;
  /** The development mail server's inbox (web and REST API), when the stack runs one. */
  mail_inbox_url: string | null;
  /** The development identity provider's issuer (its discovery document under /.well-known), when the stack runs one. */
  identity_provider_url: string | null;
  /** Where the stack's mail goes; null: logged, not sent. */
  smtp_url: string | null;
  bootstrap_secret: string;
  /** FLOE_DATA_KEYS of this stack: what a further process (a test, a CLI) needs to open or seal its stored secrets. */
  data_keys: string;
  database_url: string;
  redis_prefix: string;
  /** Whether this stack started the local Ceph (and so stops it on the way down). */
  started_ceph: boolean;
  started_at: string;
  /**
   * The foreground `npm start` that restarts a deployable which exits
   * (scripts/lib/supervisor.ts); absent for a background or private stack.
   * Stopping the stack asks it to stop, or it would start again what was stopped.
   */
  supervisor_pid?: number;
  /** Processes per replicated deployable (a stack started with a ReplicaPlan); absent: one each. */
  replicas?: number;
  /**
   * Each deployable's current process: a supervisor rewrites its pid at every
   * restart. With replicas, the second process of `catalog` is `catalog-2`,
   * and the balancers in front of the catalog and ingest hosts are recorded too.
   */
  services: Record<string, { url: string; pid: number; log: string }>;
}

const say = (line: string) => process.stdout.write(`[stack] ${line}\n`);

export function readState(paths: StackPaths): StackState | null {
  if (!existsSync(paths.stateFile)) return null;
  return JSON.parse(readFileSync(paths.stateFile, 'utf8')) as StackState;
}

/** Writes the record whole (a temporary file renamed over it), so a reader never sees half of it. */
export function writeState(paths: StackPaths, state: StackState): void {
  const tmp = `${paths.stateFile}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
  renameSync(tmp, paths.stateFile);
}

/**
 * The object store: the one named by FLOE_S3_ADMIN_* when set (an operator's
 * Ceph, or the cluster `npm test` already started), otherwise this clone's
 * single-node Ceph under .data/ceph, started if needed.
 */
async function withObjectStore(base: NodeJS.ProcessEnv): Promise<{ env: NodeJS.ProcessEnv; startedCeph: boolean }> {
  if (base.FLOE_S3_ADMIN_ACCESS_KEY && base.FLOE_S3_ADMIN_SECRET_KEY) return { env: base, startedCeph: false };
  const known = cephInfo();
  const wasUp = known !== null && (await healthy(known.endpoint));
  const lc = base.FLOE_RGW_LC_DEBUG_INTERVAL ? Number(base.FLOE_RGW_LC_DEBUG_INTERVAL) : undefined;
  const ceph = await ensureCeph({ lcDebugIntervalSeconds: lc });
  say(`Ceph RGW answers at ${ceph.endpoint}`);
  const env = {
    ...base,
    FLOE_S3_URL: ceph.endpoint,
    FLOE_S3_REGION: ceph.region,
    FLOE_S3_ADMIN_ACCESS_KEY: ceph.accessKey,
    FLOE_S3_ADMIN_SECRET_KEY: ceph.secretKey,
  };
  return { env, startedCeph: !wasUp };
}

/** Postgres and Redis answer, the database exists and is migrated, and every stored secret is sealed. */
export async function prepareData(config: FloeConfig): Promise<void> {
  await ensurePostgres(config.databaseUrl);
  await ensureRedis(config.redisUrl);
  if (await ensureDatabase(config.databaseUrl)) say(`created database ${redact(config.databaseUrl)}`);
  const { applied, sealed } = await migrateDatabase(config.databaseUrl, new Keyring(config.dataKeys));
  say(applied.length ? `applied migrations: ${applied.join(', ')}` : 'database schema is up to date');
  if (sealed.sealed) say(`sealed ${sealed.sealed} stored secret(s) left in plain text by an older version`);
}

/**
 * Starts every deployable and returns when all answer their health route. On
 * a failure it stops what it started and throws with the failing service's
 * last log lines. `relaunch` starts one of them again in the same
 * environment (for a supervisor; its log is appended to, headed by `why`).
 * With `replicas`, each deployable it names runs a second process beside the
 * first (started together), and its balancers start once their replicas answer.
 */
export async function startStack(paths: StackPaths, opts: { detached: boolean; baseEnv?: NodeJS.ProcessEnv; replicas?: ReplicaPlan }): Promise<{ state: StackState; running: Running[]; relaunch: (name: string, why: string) => Running }> {
  const store = await withObjectStore(opts.baseEnv ?? process.env);
  const { env, config } = stackEnvironment(paths, store.env);
  mkdirSync(paths.dataDir, { recursive: true });
  await prepareData(config);
  const running: Running[] = [];
  /** Starts processes together and waits until each answers its health route. */
  const launch = async (group: Running[]) => {
    for (const r of group) {
      running.push(r);
      say(`started ${r.name} (pid ${r.pid}) on ${r.url}`);
    }
    for (const r of group) {
      try {
        await waitHealthy(r, r.health);
      } catch (err) {
        await Promise.all(running.map((x) => stopPid(x.pid)));
        if (store.startedCeph) await stopCeph();
        throw new Error(`${(err as Error).message}\n--- last lines of ${r.log} ---\n${lastLines(r.log)}`);
      }
    }
  };
  for (const d of DEPLOYABLES) {
    if (d.runs && !d.runs(config)) continue;
    const group = [startDeployable(d, config, env, paths, { detached: opts.detached })];
    const second = opts.replicas?.second[d.name];
    if (second) {
      const env2 = { ...env, ...second };
      group.push(startDeployable({ ...d, name: `${d.name}-2` }, loadConfig(env2), env2, paths, { detached: opts.detached }));
    }
    await launch(group);
    for (const b of opts.replicas?.balancers.filter((x) => x.after === d.name) ?? []) {
      const benv = { ...env, FLOE_BALANCER_PORT: String(b.port), FLOE_BALANCER_TARGETS: b.targets.join(',') };
      await launch([startDeployable({ ...BALANCER, name: b.name, port: () => b.port }, config, benv, paths, { detached: opts.detached })]);
    }
  }
  const state: StackState = {
    base_url: config.baseUrl,
    catalog_url: config.catalogUrl,
    s3_url: config.s3Url,
    ingest_url: config.ingestUrl,
    ingest_internal_url: config.services.ingestInternal,
    mcp_url: config.oauth.mcpUrl,
    mail_inbox_url: config.mail.inboxUrl,
    identity_provider_url: config.devIdentityProvider?.issuer ?? null,
    smtp_url: config.mail.smtpUrl,
    bootstrap_secret: env.FLOE_BOOTSTRAP_SECRET!,
    data_keys: env.FLOE_DATA_KEYS!,
    database_url: config.databaseUrl,
    redis_prefix: config.redisPrefix,
    started_ceph: store.startedCeph,
    started_at: new Date().toISOString(),
    ...(opts.replicas ? { replicas: 2 } : {}),
    services: Object.fromEntries(running.map((r) => [r.name, { url: r.url, pid: r.pid, log: r.log }])),
  };
  writeState(paths, state);
  const relaunch = (name: string, why: string): Running => {
    const d = DEPLOYABLES.find((x) => x.name === name);
    if (!d) throw new Error(`no deployable named ${name}`);
    return startDeployable(d, config, env, paths, { detached: opts.detached, restart: why });
  };
  return { state, running, relaunch };
}

export async function stopStack(paths: StackPaths): Promise<string[]> {
  let state = readState(paths);
  if (!state) return [];
  const supervisor = state.supervisor_pid;
  if (supervisor && supervisor !== process.pid && alive(supervisor)) {
    // Its own stop stops every deployable without restarting any, then Ceph if the stack started it, and removes the record.
    say(`stopping the npm start that supervises this stack (pid ${supervisor})`);
    const stopped = [...Object.keys(state.services).reverse(), ...(state.started_ceph ? ['ceph'] : [])];
    await stopPid(supervisor, 5 * 60_000);
    state = readState(paths);
    if (!state) return stopped;
  }
  const names = Object.keys(state.services).reverse();
  await Promise.all(names.map((n) => stopPid(state.services[n].pid)));
  if (state.started_ceph) {
    await stopCeph();
    names.push('ceph');
  }
  rmSync(paths.stateFile, { force: true });
  return names;
}

/** Whether the recorded stack is running and healthy, per service. */
export async function stackStatus(paths: StackPaths): Promise<Record<string, { pid: number; alive: boolean; healthy: boolean }> | null> {
  const state = readState(paths);
  if (!state) return null;
  const out: Record<string, { pid: number; alive: boolean; healthy: boolean }> = {};
  // RGW answers an anonymous GET / with 200 (an empty bucket list).
  const rgwUp = await healthy(state.s3_url);
  out.rgw = { pid: 0, alive: rgwUp, healthy: rgwUp };
  for (const d of DEPLOYABLES) {
    const s = state.services[d.name];
    if (!s) continue;
    out[d.name] = { pid: s.pid, alive: alive(s.pid), healthy: await healthy(s.url + d.health) };
  }
  return out;
}
