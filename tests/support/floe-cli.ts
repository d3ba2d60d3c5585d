// Runs the real `floe` binary as a child process, the way a shell runs it after
// install: node_modules/.bin/floe is the shim pnpm makes for @floe/cli's `bin`.
// The child gets a clean environment (none of the stack's own FLOE_* settings, no CI,
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
  /** Resolves with the first match of `pattern` in stdout or stderr (floe prints what it asks of the person on stderr). */
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
    // CI is dropped too: floe draws tables and bars only for a person, and a
    // CI runner's own CI=true would turn the pseudo-terminal runs into script runs.
    if (!k.startsWith('FLOE_') && !['CI', 'DISPLAY', 'WAYLAND_DISPLAY', 'XDG_CONFIG_HOME'].includes(k)) env[k] = v;
  }
  return { ...env, FLOE_NO_BROWSER: '1', ...extra };
}

const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * `tty: true` runs floe under a pseudo-terminal (util-linux `script`), as a
 * person's shell does: stdin, stdout and stderr are all the terminal, so
 * stdout carries both streams with the terminal's \r\n and escapes, and
 * `stdin` is what the person types.
 */
export function startFloe(args: string[], extra: NodeJS.ProcessEnv, stdin?: string, opts: { tty?: boolean } = {}): Running {
  const child = opts.tty
    ? spawn('script', ['-q', '-f', '-e', '-c', [FLOE_BIN, ...args].map(shellQuote).join(' '), '/dev/null'], { env: { ...cliEnv(extra), TERM: 'xterm-256color', COLUMNS: '120' }, stdio: ['pipe', 'pipe', 'pipe'] })
    : spawn(FLOE_BIN, args, { env: cliEnv(extra), stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const watchers: Array<() => void> = [];
  child.stdout!.on('data', (b: Buffer) => { stdout += b.toString(); watchers.forEach((w) => w()); });
  child.stderr!.on('data', (b: Buffer) => { stderr += b.toString(); watchers.forEach((w) => w()); });
  if (opts.tty) {
    // The person types after the prompt shows; `script` passes it to the terminal.
    if (stdin !== undefined) child.stdin!.write(stdin);
  } else {
    child.stdin!.end(stdin ?? '');
  }
  const done = new Promise<FloeResult>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
  const waitFor = (pattern: RegExp, ms = 20_000) => new Promise<RegExpMatchArray>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`floe ${args.join(' ')} printed no ${pattern} within ${ms} ms; stdout: ${stdout}; stderr: ${stderr}`)), ms);
    const check = () => {
      const m = stdout.match(pattern) ?? stderr.match(pattern);
      if (m) { clearTimeout(timer); resolve(m); }
    };
    watchers.push(check);
    check();
    void done.then(() => { check(); clearTimeout(timer); if (!stdout.match(pattern) && !stderr.match(pattern)) reject(new Error(`floe ${args.join(' ')} ended without printing ${pattern}; stdout: ${stdout}; stderr: ${stderr}`)); });
  });
  return { child, stdout: () => stdout, waitFor, done };
}

/** Runs `floe args…` to the end. */
export function floe(args: string[], extra: NodeJS.ProcessEnv, stdin?: string): Promise<FloeResult> {
  return startFloe(args, extra, stdin).done;
}

/** Runs `floe args…` to the end on a pseudo-terminal; `stdout` is the terminal's text with escapes and carriage returns. */
export function floeTty(args: string[], extra: NodeJS.ProcessEnv, typed?: string): Promise<FloeResult> {
  const r = startFloe(args, extra, typed, { tty: true });
  if (typed === undefined) r.child.stdin!.end();
  return r.done;
}

/** A terminal's text as a person reads it: escapes gone, each \r-redrawn line at its last state. */
export function screenText(raw: string): string {
  // eslint-disable-next-line no-control-regex
  const plain = raw.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
  return plain.split(/\r?\n/).map((line) => line.split('\r').filter(Boolean).pop() ?? '').join('\n');
}
