import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { Redis } from 'ioredis';
import pg from 'pg';

// Postgres and Redis are the machine's own (on a server, the operator's). On a
// development machine where they are installed but stopped, start them the way
// ../shared/TOOLCHAIN.md records.

const say = (line: string) => process.stdout.write(`[stack] ${line}\n`);

async function postgresAnswers(url: string): Promise<boolean> {
  const u = new URL(url);
  u.pathname = '/postgres';
  const client = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const r = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
  r.on('error', () => undefined);
  try {
    await r.connect();
    return (await r.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    r.disconnect();
  }
}

function isLocal(url: string): boolean {
  const host = new URL(url).hostname;
  return host === '127.0.0.1' || host === 'localhost' || host === '::1';
}

async function waitFor(check: () => Promise<boolean>, seconds: number): Promise<boolean> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}

export async function ensurePostgres(url: string): Promise<void> {
  if (await postgresAnswers(url)) return;
  if (!isLocal(url) || !existsSync('/etc/postgresql')) {
    throw new Error(`Postgres at ${redact(url)} does not answer; start it or set DATABASE_URL`);
  }
  const version = readdirSync('/etc/postgresql')[0];
  say(`starting the local Postgres ${version} cluster`);
  spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], { stdio: 'inherit' });
  if (!(await waitFor(() => postgresAnswers(url), 30))) throw new Error('Postgres did not come up within 30 s');
}

export async function ensureRedis(url: string): Promise<void> {
  if (await redisAnswers(url)) return;
  if (!isLocal(url) || !commandExists('redis-server')) {
    throw new Error(`Redis at ${url} does not answer; start it or set REDIS_URL`);
  }
  say('starting the local Redis');
  const port = new URL(url).port || '6379';
  spawnSync('redis-server', ['--daemonize', 'yes', '--bind', '127.0.0.1', '-::1', '--port', port, '--save', '', '--appendonly', 'no',
    '--dir', '/var/lib/redis', '--logfile', '/var/log/redis/ci.log'], { stdio: 'inherit' });
  if (!(await waitFor(() => redisAnswers(url), 15))) throw new Error('Redis did not come up within 15 s');
}

function commandExists(cmd: string): boolean {
  try {
    execSync(`command -v ${cmd}`, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

export function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/**
 * Where stack ports are chosen: below the kernel's ephemeral range, so an
 * outgoing connection (to Postgres, Redis, the store: a busy suite opens
 * thousands) can never hold the port a deployable is about to listen on,
 * or listen on again after a fault test killed it (EADDRINUSE, seen). Null
 * where that range leaves too little room: the kernel chooses then.
 */
function stackPortRange(): [number, number] | null {
  let ephemeralLow = 32768;
  try {
    ephemeralLow = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || ephemeralLow;
  } catch {
    // Not Linux: keep the usual start of the range.
  }
  const high = Math.min(ephemeralLow, 32768);
  const low = Math.max(high - 12_000, 10_000);
  return high - low >= 2_000 ? [low, high] : null;
}
const STACK_PORTS = stackPortRange();

/** A listener on `port` (0: the kernel's choice), or null when the port is taken. */
function listenOn(port: number): Promise<net.Server | null> {
  return new Promise((resolveP) => {
    const srv = net.createServer();
    srv.unref();
    srv.once('error', () => resolveP(null));
    srv.listen(port, '127.0.0.1', () => resolveP(srv));
  });
}

/**
 * `count` distinct free ports (for stacks that must not collide with a
 * running one): every listener is held open until all are chosen, so none
 * is handed out twice (a private stack once gave its gateway and its tool
 * server the same port, and the gateway never listened). Random within
 * STACK_PORTS, so two processes choosing at once rarely meet.
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    for (let tries = 0; servers.length < count; tries++) {
      if (tries > 100 * count) throw new Error(`no ${count} free ports found among ${STACK_PORTS?.join('–') ?? 'the kernel\'s'}`);
      const port = STACK_PORTS ? STACK_PORTS[0] + Math.floor(Math.random() * (STACK_PORTS[1] - STACK_PORTS[0])) : 0;
      const srv = await listenOn(port);
      if (srv) servers.push(srv);
    }
    return servers.map((srv) => (srv.address() as net.AddressInfo).port);
  } finally {
    await Promise.all(servers.map((srv) => new Promise((r) => srv.close(() => r(undefined)))));
  }
}

/** One free port, as freePorts chooses them. */
export async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}
