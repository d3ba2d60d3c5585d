import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { FloeConfig } from '@floe/config';
import type { Deployable } from './deployables';
import { ROOT, type StackPaths } from './stack-env';

export interface Running {
  name: string;
  url: string;
  /** The path of its health route on `url`. */
  health: string;
  pid: number;
  log: string;
  child?: ChildProcess;
}

/**
 * Starts one deployable as its own Node process (TypeScript through tsx), its
 * output in a log file. `restart` (a supervisor starting it again) appends to
 * the log after a marker line instead of starting it afresh, so the dead
 * process's last words stay readable.
 */
export function startDeployable(d: Deployable, config: FloeConfig, env: NodeJS.ProcessEnv, paths: StackPaths, opts: { detached: boolean; restart?: string }): Running {
  const { detached } = opts;
  mkdirSync(paths.logDir, { recursive: true });
  const log = join(paths.logDir, `${d.name}.log`);
  // A fresh log per stack start, so the last lines shown on a failure are this start's.
  const fd = openSync(log, opts.restart ? 'a' : 'w');
  if (opts.restart) writeSync(fd, `--- ${new Date().toISOString()} ${opts.restart} ---\n`);
  // FLOE_NODE_FLAGS: extra Node flags for every deployable (e.g. --cpu-prof, which NODE_OPTIONS refuses).
  const flags = (env.FLOE_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...flags, '--import', 'tsx', d.entry], {
    cwd: ROOT,
    env,
    detached,
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  if (detached) child.unref();
  return { name: d.name, url: `http://127.0.0.1:${d.port(config)}`, health: d.health, pid: child.pid!, log, child };
}

export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Whether a process has exited (its own child: from its exit status, which a pid check misses until it is reaped). */
export function exited(r: Running): boolean {
  if (r.child) return r.child.exitCode !== null || r.child.signalCode !== null;
  return !alive(r.pid);
}

/** Waits for a deployable's health route; fails early if its process exits. */
export async function waitHealthy(r: Running, healthPath: string, seconds = 60): Promise<void> {
  const until = Date.now() + seconds * 1000;
  while (Date.now() < until) {
    if (exited(r)) throw new Error(`${r.name} exited during start-up`);
    if (await healthy(r.url + healthPath)) return;
    await new Promise((res) => setTimeout(res, 200));
  }
  throw new Error(`${r.name} did not answer ${healthPath} within ${seconds} s`);
}

export function lastLines(file: string, n = 25): string {
  if (!existsSync(file)) return '(no log)';
  return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-n).join('\n');
}

/** SIGTERM, a grace period, then SIGKILL. */
export async function stopPid(pid: number, graceMs = 6000): Promise<void> {
  if (!alive(pid)) return;
  try { process.kill(pid, 'SIGTERM'); } catch { return; }
  const until = Date.now() + graceMs;
  while (Date.now() < until && alive(pid)) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
}
