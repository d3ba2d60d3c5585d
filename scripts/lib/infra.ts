import { execSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
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

/** A port nobody listens on right now (for test stacks that must not collide with a running one). */
/**
 * `count` distinct free ports: every listener is held open until all are
 * chosen, so the kernel cannot hand one port out twice (one at a time, a
 * port just closed may come back: a private stack once gave its gateway and
 * its tool server the same port, and the gateway never listened).
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers: net.Server[] = [];
  try {
    const ports: number[] = [];
    for (let i = 0; i < count; i++) {
      const srv = net.createServer();
      srv.unref();
      servers.push(srv);
      ports.push(await new Promise<number>((resolveP, reject) => {
        srv.on('error', reject);
        srv.listen(0, '127.0.0.1', () => resolveP((srv.address() as net.AddressInfo).port));
      }));
    }
    return ports;
  } finally {
    await Promise.all(servers.map((srv) => new Promise((r) => srv.close(() => r(undefined)))));
  }
}

export async function freePort(): Promise<number> {
  return new Promise((resolveP, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolveP(port));
    });
  });
}
