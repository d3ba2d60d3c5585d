// Runs the real `floe` binary as a child process, the way a shell runs it after
// install: node_modules/.bin/floe is the shim pnpm makes for @floe/cli's `bin`.
// The child gets a clean environment (none of the stack's own FLOE_* settings,
// no desktop to open a browser in) plus what each test passes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../scripts/lib/stack-env';

export const FLOE_BIN = join(ROOT, 'node_modules', '.bin', 'floe');

export interface FloeResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface Running {
  child: ChildProcess;
  /** Everything printed to stdout so far. */
  stdout: () => string;
  /** Resolves with the first match of `pattern` in stdout. */
  waitFor: (pattern: RegExp, ms?: number) => Promise<RegExpMatchArray>;
  done: Promise<FloeResult>;
}

/** A fresh, private config directory for one test; `cleanup` removes it. */
export function tempConfigDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'floe-cli-e2e-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function cliEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith('FLOE_') && !['DISPLAY', 'WAYLAND_DISPLAY', 'XDG_CONFIG_HOME'].includes(k)) env[k] = v;
  }
  return { ...env, FLOE_NO_BROWSER: '1', ...extra };
}

export function startFloe(args: string[], extra: NodeJS.ProcessEnv, stdin?: string): Running {
  const child = spawn(FLOE_BIN, args, { env: cliEnv(extra), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const watchers: Array<() => void> = [];
  child.stdout!.on('data', (b: Buffer) => { stdout += b.toString(); watchers.forEach((w) => w()); });
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString(); });
  child.stdin!.end(stdin ?? '');
  const done = new Promise<FloeResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const waitFor = (pattern: RegExp, ms = 20_000) => new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`floe ${args.join(' ')} printed no ${pattern} within ${ms} ms; stdout: ${stdout}; stderr: ${stderr}`)), ms);
    const check = () => {
      const m = stdout.match(pattern);
      if (m) { clearTimeout(timer); resolve(m); }
    };
    watchers.push(check);
    check();
    void done.then(() => { check(); clearTimeout(timer); if (!stdout.match(pattern)) reject(new Error(`floe ${args.join(' ')} ended without printing ${pattern}; stdout: ${stdout}; stderr: ${stderr}`)); });
  });
  return { child, stdout: () => stdout, waitFor, done };
}

/** Runs `floe args…` to the end. */
export function floe(args: string[], extra: NodeJS.ProcessEnv, stdin?: string): Promise<FloeResult> {
  return startFloe(args, extra, stdin).done;
}
