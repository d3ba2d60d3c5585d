// Thin wrapper over infra/ceph/ceph.sh, the single-node Ceph cluster and
// RADOS Gateway that is Floe's object store on one machine. The stack runner
// and tests call ensureCeph() and get the endpoint and the admin user's keys.
// Node builtins only.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';

export interface CephInfo {
  endpoint: string;
  region: string;
  accessKey: string;
  secretKey: string;
  dataDir: string;
}

// This file is scripts/lib/ceph.ts.
const ROOT = resolve(import.meta.dirname, '..', '..');
const SCRIPT = join(ROOT, 'infra', 'ceph', 'ceph.sh');

/** `<repo>/.data/ceph` unless FLOE_CEPH_DIR says otherwise (relative paths are from the repo root, as in ceph.sh). */
export function cephDataDir(env: NodeJS.ProcessEnv = process.env): string {
  const dir = env.FLOE_CEPH_DIR || '.data/ceph';
  return (isAbsolute(dir) ? dir : join(ROOT, dir)).replace(/\/+$/, '');
}

/** The admin user's credentials written by `ceph.sh start`, or null when there are none yet. */
export function cephInfo(): CephInfo | null {
  const file = join(cephDataDir(), 'admin.json');
  if (!existsSync(file)) return null;
  const raw = JSON.parse(readFileSync(file, 'utf8')) as {
    endpoint: string; region: string; access_key: string; secret_key: string; data_dir: string;
  };
  return { endpoint: raw.endpoint, region: raw.region, accessKey: raw.access_key, secretKey: raw.secret_key, dataDir: raw.data_dir };
}

/**
 * Installs Ceph if needed, bootstraps or restarts the cluster and radosgw,
 * makes sure the admin user exists, and returns how to reach it. Quick when
 * everything already runs. `lcDebugIntervalSeconds` makes a lifecycle "day"
 * that many seconds (radosgw is restarted when it runs with another value).
 */
export async function ensureCeph(opts: { lcDebugIntervalSeconds?: number; quiet?: boolean } = {}): Promise<CephInfo> {
  const env: NodeJS.ProcessEnv = {};
  if (opts.lcDebugIntervalSeconds !== undefined) {
    if (!Number.isInteger(opts.lcDebugIntervalSeconds)) throw new Error('lcDebugIntervalSeconds must be an integer');
    env.FLOE_RGW_LC_DEBUG_INTERVAL = String(opts.lcDebugIntervalSeconds);
  }
  await runScript('start', { quiet: opts.quiet, env, relevantLog: 'client.rgw.gw.log', timeoutMs: 15 * 60_000 });
  const info = cephInfo();
  if (!info) throw withLog(`ceph.sh start finished but ${join(cephDataDir(), 'admin.json')} is missing`, 'client.rgw.gw.log');
  return info;
}

/** Stops radosgw, the OSD, the mgr and the mon; data stays. */
export async function stopCeph(): Promise<void> {
  await runScript('stop', { quiet: true, relevantLog: 'mon.a.log', timeoutMs: 3 * 60_000 });
}

/** Stops radosgw, waits for it to exit, starts it again and waits until it answers (fault tests). */
export async function restartRgw(): Promise<void> {
  await runScript('restart-rgw', { quiet: true, relevantLog: 'client.rgw.gw.log', timeoutMs: 3 * 60_000 });
}

/**
 * Tests only: a second radosgw on the cluster whose clock runs `offsetSeconds`
 * ahead, so a test sees a credential after its expiry without waiting. Clients
 * must sign with the same offset (the AWS SDK's `systemClockOffset`).
 */
export async function startShiftedRgw(port: number, offsetSeconds: number): Promise<string> {
  await runScript(`start-shifted-rgw`, { quiet: true, relevantLog: `shifted-rgw-${port}.log`, timeoutMs: 90_000, args: [String(port), String(offsetSeconds)] });
  return `http://127.0.0.1:${port}`;
}

export async function stopShiftedRgw(port: number): Promise<void> {
  await runScript('stop-shifted-rgw', { quiet: true, relevantLog: `shifted-rgw-${port}.log`, timeoutMs: 30_000, args: [String(port)] });
}

interface RunOpts {
  args?: string[];
  quiet?: boolean;
  env?: NodeJS.ProcessEnv;
  relevantLog: string;
  timeoutMs: number;
}

function runScript(command: string, opts: RunOpts): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [SCRIPT, command, ...(opts.args ?? [])], {
      cwd: ROOT,
      env: { ...process.env, ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const tail: string[] = [];
    const keep = (chunk: Buffer) => {
      tail.push(...chunk.toString('utf8').split('\n').filter((l) => l.length > 0));
      if (tail.length > 60) tail.splice(0, tail.length - 60);
    };
    child.stdout.on('data', (c: Buffer) => {
      keep(c);
      if (!opts.quiet) process.stdout.write(c);
    });
    child.stderr.on('data', (c: Buffer) => {
      keep(c);
      if (!opts.quiet) process.stderr.write(c);
    });
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(withLog(`ceph.sh ${command} did not finish within ${Math.round(opts.timeoutMs / 1000)} s\n${tail.slice(-20).join('\n')}`, opts.relevantLog));
    }, opts.timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${SCRIPT}: ${err.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolvePromise();
      const how = signal ? `was killed by ${signal}` : `exited with ${code}`;
      reject(withLog(`ceph.sh ${command} ${how}\n--- its output ---\n${tail.slice(-30).join('\n')}`, opts.relevantLog));
    });
  });
}

function withLog(message: string, logName: string): Error {
  const file = join(cephDataDir(), 'log', logName);
  if (!existsSync(file)) return new Error(message);
  return new Error(`${message}\n--- last lines of ${file} ---\n${tailOf(file, 20)}`);
}

/** The last lines of a file, reading only its end (Ceph logs grow large). */
function tailOf(file: string, n: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const len = Math.min(size, 64 * 1024);
    const buf = Buffer.alloc(len);
    readSync(fd, buf, 0, len, size - len);
    return buf.toString('utf8').trimEnd().split('\n').slice(-n).join('\n');
  } finally {
    closeSync(fd);
  }
}
