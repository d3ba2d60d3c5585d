#!/usr/bin/env node
// Generates the Prisma client of packages/db, offline and only when needed.
//
//   node scripts/prisma-generate.mjs [--force]
//
// `prisma generate` insists on downloading a schema-engine binary before it
// starts, although generation never uses it; pointing
// PRISMA_SCHEMA_ENGINE_BINARY at any existing executable skips the download
// (see TOOLCHAIN.md, "Prisma 7 offline"). Generation costs ~1.5 s, so it is
// skipped when the client exists and schema.prisma has the hash recorded at
// the last generation. Plain Node, no dependencies: it runs before anything
// else is known to work.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

// Paths come from this file's location so any cwd works.
const root = dirname(dirname(fileURLToPath(import.meta.url)));
const dbDir = join(root, 'packages', 'db');
const schemaPath = join(dbDir, 'prisma', 'schema.prisma');
const generatedDir = join(dbDir, 'src', 'generated');
const hashPath = join(generatedDir, '.schema-hash');
const clientPath = join(generatedDir, 'client.ts');

const force = process.argv.slice(2).includes('--force');
const hash = createHash('sha256').update(readFileSync(schemaPath)).digest('hex');
const recorded = existsSync(hashPath) ? readFileSync(hashPath, 'utf8').trim() : null;

if (!force && existsSync(clientPath) && recorded === hash) {
  console.log('prisma client up to date');
  process.exit(0);
}

// Run the CLI that packages/db depends on, with this very node, rather than
// npx (which may look for another version or reach the network).
const requireFromDb = createRequire(join(dbDir, 'package.json'));
const prismaPkgPath = requireFromDb.resolve('prisma/package.json');
const prismaBin = JSON.parse(readFileSync(prismaPkgPath, 'utf8')).bin.prisma;
const prismaCli = join(dirname(prismaPkgPath), prismaBin);

const started = Date.now();
const result = spawnSync(process.execPath, [prismaCli, 'generate'], {
  cwd: dbDir,
  encoding: 'utf8',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY || process.execPath,
    // No update check or telemetry call: there is no network to wait for.
    CHECKPOINT_DISABLE: '1',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
  },
});

if (result.status !== 0) {
  process.stderr.write(result.stdout ?? '');
  process.stderr.write(result.stderr ?? '');
  console.error(`prisma generate failed (${result.error?.message ?? `exit ${result.status}`})`);
  process.exit(result.status || 1);
}

// Written last and atomically, so an interrupted run regenerates next time.
const tmp = `${hashPath}.${process.pid}.tmp`;
writeFileSync(tmp, `${hash}\n`);
renameSync(tmp, hashPath);
console.log(`prisma client generated in ${Date.now() - started} ms`);
