// The unit tests' way of running whole command lines in memory: `run(argv,
// io)` as main.ts calls it, with an Io that records what would be printed.
// Every run of one test file shares one temporary config directory, made at
// first use and removed after the file's tests (a test file imports this
// module once, so jest registers the hook once per file). Not published
// (tsconfig.build.json leaves it out).
import { afterAll } from '@jest/globals';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Io } from './io.js';
import { run } from './program.js';

/** A key and a base URL where nothing listens: a command that got as far as a call would exit 4, not 2. */
export const NO_SERVER = { FLOE_API_KEY: 'al_live_k_s', FLOE_BASE_URL: 'http://127.0.0.1:9' };

let dir: string | undefined;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** This test file's temporary directory: the config directory of every fakeIo, and room for files a test needs. */
export function testDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), 'floe-cli-test-'));
  return dir;
}

export interface FakeIoOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether stdout, stderr and stdin all count as terminals (default: none does). */
  tty?: boolean;
  /** What the person types when asked; the question itself goes to `err`. */
  answer?: string;
  configDir?: string;
}

/** An Io whose output lands in `out` and `err`, a line an element. */
export function fakeIo(opts: FakeIoOptions = {}): { io: Io; out: string[]; err: string[] } {
  const out: string[] = [];
  const err: string[] = [];
  const tty = opts.tty ?? false;
  const io: Io = {
    env: { ...opts.env },
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    configDir: opts.configDir ?? testDir(),
    readInput: async () => '',
    tty: { out: tty, err: tty, in: tty },
    ask: async (q) => { err.push(q); return opts.answer ?? ''; },
  };
  return { io, out, err };
}

/** One command line, run to its exit code; stdout and stderr as text. */
export async function runFloe(argv: string[], opts: FakeIoOptions = {}): Promise<{ code: number; out: string; err: string }> {
  const { io, out, err } = fakeIo(opts);
  const code = await run(argv, io);
  return { code, out: out.join('\n'), err: err.join('\n') };
}
