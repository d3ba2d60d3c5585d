#!/usr/bin/env node
// First step of `npm start`, `npm test` and the stack scripts on any machine:
// makes sure pnpm (the version pinned in package.json), the dependencies and
// the generated Prisma client are present. Plain Node, no dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pnpmVersion = pkg.packageManager.split('@')[1];

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  fail(`Node ${process.versions.node} is too old: Floe needs Node 20.19 or newer.`);
}

function say(line) {
  process.stdout.write(`[bootstrap] ${line}\n`);
}

function fail(line) {
  process.stderr.write(`[bootstrap] ${line}\n`);
  process.exit(1);
}

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
  if (r.status !== 0) fail(`${cmd} ${args.join(' ')} failed (exit ${r.status ?? r.signal})`);
}

function installedPnpm() {
  try {
    return execFileSync('pnpm', ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return null;
  }
}

// npm 11 refuses corepack's signature check here, so the pinned pnpm is installed with npm itself.
const have = installedPnpm();
if (have !== pnpmVersion) {
  say(`installing pnpm ${pnpmVersion}${have ? ` (found ${have})` : ''}`);
  run('npm', ['install', '--global', '--no-fund', '--no-audit', `pnpm@${pnpmVersion}`]);
}

const marker = join(root, 'node_modules', '.modules.yaml');
const lock = join(root, 'pnpm-lock.yaml');
const stale = !existsSync(marker) || statSync(lock).mtimeMs > statSync(marker).mtimeMs;
if (stale) {
  say('installing dependencies (pnpm install --frozen-lockfile)');
  run('pnpm', ['install', '--frozen-lockfile', '--reporter=append-only'], { env: { ...process.env, CI: 'true' } });
}

run(process.execPath, [join(root, 'scripts', 'prisma-generate.mjs')]);
