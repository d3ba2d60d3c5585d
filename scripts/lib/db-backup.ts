// Backup and restore of a stack's database (`npm run db:backup`, `npm run
// db:restore`, and the restore drill in tests/fault/database-restore.test.ts).
//
// The database is everything that makes the buckets' files a catalog: the
// pointer to each table's current metadata file, every credential (key
// hashes, sealed storage keys and signing keys), sinks and their ledgers,
// grants and the audit trail. A backup is a pg_dump in custom format; a
// restore loads it into a scratch database, migrates that copy forward to
// this release's schema (and checks its sealed secrets open with this
// stack's data keys), and only then puts it in place of the stack's
// database, so a bad file or the wrong data keys leave the database as it was.
// See docs/backup.md.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, readSync, renameSync, rmSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pg from 'pg';
import { dropDatabase, ensureDatabase, migrateDatabase, type SealReport } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { redact } from './infra';
import { alive } from './processes';
import { readState } from './stack';
import type { StackPaths } from './stack-env';

/** A failure the operator can act on: the commands print its message alone, no stack trace. */
export class BackupError extends Error {}

/** The first bytes of every pg_dump custom-format file. */
const DUMP_MAGIC = 'PGDMP';

function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!name) throw new BackupError(`the database URL names no database: ${redact(databaseUrl)}`);
  return name;
}

function withDatabase(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** Runs `fn` on the server's `postgres` database; a server that does not answer is an operator's error, said plainly. */
async function onServer<T>(databaseUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: withDatabase(databaseUrl, 'postgres'), connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (err) {
    throw new BackupError(`Postgres at ${redact(databaseUrl)} does not answer: ${(err as Error).message}`);
  }
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => undefined);
  }
}

async function serverFacts(databaseUrl: string): Promise<{ major: number; exists: boolean }> {
  return onServer(databaseUrl, async (client) => {
    const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num);
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [databaseName(databaseUrl)]);
    return { major: Math.floor(version / 10000), exists: (rowCount ?? 0) > 0 };
  });
}

/** The major version a pg_dump/pg_restore binary reports ("pg_dump (PostgreSQL) 15.20 (Debian …)"), or null if it does not run. */
function toolMajor(path: string): number | null {
  const r = spawnSync(path, ['--version'], { encoding: 'utf8' });
  const m = r.status === 0 ? /\(PostgreSQL\)\s+(\d+)/.exec(r.stdout) : null;
  return m ? Number(m[1]) : null;
}

/**
 * The pg_dump or pg_restore to use against a server of major version
 * `serverMajor`: FLOE_PG_BIN's when set, else Debian's versioned binaries
 * (/usr/lib/postgresql/<major>/bin, the server's own major first, else the
 * oldest newer one: pg_dump refuses a server newer than itself), else the one
 * on PATH if it is new enough (Debian's wrapper there picks by cluster).
 */
export function postgresTool(name: 'pg_dump' | 'pg_restore', serverMajor: number, env: NodeJS.ProcessEnv = process.env): string {
  if (env.FLOE_PG_BIN) {
    const path = join(env.FLOE_PG_BIN, name);
    if (!existsSync(path)) throw new BackupError(`FLOE_PG_BIN is ${env.FLOE_PG_BIN}, which holds no ${name}`);
    return path;
  }
  const debian = '/usr/lib/postgresql';
  const majors = existsSync(debian)
    ? readdirSync(debian).map(Number).filter((v) => Number.isInteger(v) && v >= serverMajor).sort((a, b) => a - b)
    : [];
  for (const major of majors) {
    const path = join(debian, String(major), 'bin', name);
    if (existsSync(path)) return path;
  }
  const onPath = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (onPath && (toolMajor(onPath) ?? 0) >= serverMajor) return onPath;
  throw new BackupError(`no ${name} for Postgres ${serverMajor} or newer: install postgresql-client-${serverMajor} (Debian) or set FLOE_PG_BIN to the folder that holds it`);
}

/** The URL without its password, and the environment that hands the password over (never on a command line `ps` shows). */
function connectionFor(databaseUrl: string): { url: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl);
  const env: NodeJS.ProcessEnv = { ...process.env };
  if (url.password) env.PGPASSWORD = decodeURIComponent(url.password);
  url.password = '';
  return { url: url.toString(), env };
}

function run(tool: string, args: string[], env: NodeJS.ProcessEnv): void {
  const r = spawnSync(tool, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new BackupError(`${tool} did not run: ${r.error.message}`);
  if (r.status !== 0) {
    const said = (r.stderr || r.stdout || '').trim().split('\n').slice(-8).join('\n');
    throw new BackupError(`${tool.split('/').pop()} failed (exit ${r.status ?? r.signal})${said ? `:\n${said}` : ''}`);
  }
}

/** `20261127T171949Z`: sorts in time order and names no local zone. */
function utcStamp(at = new Date()): string {
  return at.toISOString().replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
}

export interface BackupResult {
  file: string;
  bytes: number;
  database: string;
}

/**
 * pg_dump (custom format) of the database at `databaseUrl` into `file`
 * (default `<dataDir>/backups/<db>-<UTC time>.dump`). Written under a
 * temporary name and renamed when complete, so a failed dump never leaves a
 * file that looks like a backup; an existing file is never overwritten.
 */
export async function backupDatabase(opts: { databaseUrl: string; dataDir: string; file?: string; env?: NodeJS.ProcessEnv }): Promise<BackupResult> {
  const database = databaseName(opts.databaseUrl);
  const { major, exists } = await serverFacts(opts.databaseUrl);
  if (!exists) throw new BackupError(`database ${database} does not exist at ${redact(withDatabase(opts.databaseUrl, 'postgres'))}: nothing to back up`);
  const file = opts.file ?? join(opts.dataDir, 'backups', `${database}-${utcStamp()}.dump`);
  if (existsSync(file)) throw new BackupError(`${file} already exists: a backup never overwrites another; name a new file`);
  mkdirSync(dirname(file), { recursive: true });
  const partial = `${file}.partial-${process.pid}`;
  const { url, env } = connectionFor(opts.databaseUrl);
  try {
    // --no-password: a server that wants a password the URL lacks fails at once instead of waiting at a prompt.
    run(postgresTool('pg_dump', major, opts.env), ['--format=custom', '--no-password', `--file=${partial}`, `--dbname=${url}`], env);
    // Owner-only, like the data keys beside it: it holds every key hash and sealed secret.
    chmodSync(partial, 0o600);
    renameSync(partial, file);
  } finally {
    rmSync(partial, { force: true });
  }
  return { file, bytes: statSync(file).size, database };
}

/** The deployables (and supervising `npm start`) of the stack recorded at `paths` that are running now. */
export function runningDeployables(paths: StackPaths): string[] {
  const state = readState(paths);
  if (!state) return [];
  const running = Object.entries(state.services).filter(([, s]) => alive(s.pid)).map(([name, s]) => `${name} (pid ${s.pid})`);
  if (state.supervisor_pid && alive(state.supervisor_pid)) running.unshift(`npm start (pid ${state.supervisor_pid})`);
  return running;
}

function checkDumpFile(file: string): void {
  if (!existsSync(file)) throw new BackupError(`${file} does not exist`);
  if (!statSync(file).isFile()) throw new BackupError(`${file} is not a file`);
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(DUMP_MAGIC.length);
  try {
    readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (head.toString('latin1') !== DUMP_MAGIC) throw new BackupError(`${file} is not a pg_dump custom-format file (npm run db:backup writes those)`);
}

export interface RestoreResult {
  database: string;
  /** Migrations this release applied on top of the backup's schema. */
  applied: string[];
  sealed: SealReport;
}

/**
 * Puts the backup in `file` in place of the database at `databaseUrl`.
 *
 * Refused while a deployable of the stack recorded at `paths` runs, or while
 * other sessions use the database (a service of another stack, a psql),
 * unless `force`: a running service would keep writing into a database about
 * to disappear, and reconnect to the restored one with state of its own that
 * no longer matches (a roller half through a roll). `force` drops their
 * connections (DROP DATABASE … WITH (FORCE)).
 *
 * The file is loaded (pg_restore --no-owner, one transaction) into a scratch
 * database on the same server and migrated there to this release with the
 * stack's data keys; only when that succeeds is the old database dropped and
 * the scratch one renamed to its name.
 */
export async function restoreDatabase(opts: { databaseUrl: string; file: string; keyring: Keyring; paths?: StackPaths; force?: boolean; env?: NodeJS.ProcessEnv; say?: (line: string) => void }): Promise<RestoreResult> {
  const say = opts.say ?? (() => undefined);
  const database = databaseName(opts.databaseUrl);
  checkDumpFile(opts.file);
  const { major, exists } = await serverFacts(opts.databaseUrl);
  if (!opts.force) {
    const running = opts.paths ? runningDeployables(opts.paths) : [];
    if (running.length) {
      throw new BackupError(`the stack is running (${running.join(', ')}): stop it first (npm run stack:down, or Ctrl-C in npm start), or pass --force`);
    }
    if (exists) {
      const sessions = await onServer(opts.databaseUrl, async (c) => (await c.query<{ who: string }>(
        `SELECT coalesce(nullif(application_name, ''), 'pid ' || pid) AS who FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [database])).rows);
      if (sessions.length) {
        throw new BackupError(`${sessions.length} other session(s) use database ${database} (${[...new Set(sessions.map((s) => s.who))].join(', ')}): stop them first, or pass --force to disconnect them`);
      }
    }
  }
  const pgRestore = postgresTool('pg_restore', major, opts.env);
  const { env } = connectionFor(opts.databaseUrl);
  // The whole file must be readable: a truncated or foreign file fails here, before anything changed.
  run(pgRestore, ['--list', opts.file], env);

  const scratchName = `${database.slice(0, 40)}_restore_${randomBytes(4).toString('hex')}`;
  const scratchUrl = withDatabase(opts.databaseUrl, scratchName);
  let result: { applied: string[]; sealed: SealReport };
  await ensureDatabase(scratchUrl);
  try {
    say(`loading ${opts.file} into scratch database ${scratchName}`);
    // --single-transaction: all of it or none; --no-owner: the objects belong to the role restoring, as they did to the role that migrated.
    run(pgRestore, ['--no-owner', '--no-privileges', '--single-transaction', '--exit-on-error', '--no-password', `--dbname=${connectionFor(scratchUrl).url}`, opts.file], env);
    try {
      result = await migrateDatabase(scratchUrl, opts.keyring);
    } catch (err) {
      throw new BackupError(`the restored copy could not be brought to this release: ${(err as Error).message}`
        + '\n(a backup is opened with the data keys of the stack that took it: FLOE_DATA_KEYS, or .data/data-keys on a local stack)');
    }
  } catch (err) {
    await dropDatabase(scratchUrl).catch(() => undefined);
    if (err instanceof BackupError) throw new BackupError(`${err.message}\n${database} is unchanged.`);
    throw err;
  }
  await onServer(opts.databaseUrl, async (client) => {
    // Nothing of ours still holds the scratch copy open; a rename needs it idle.
    await client.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [scratchName]);
    await client.query(`DROP DATABASE IF EXISTS ${client.escapeIdentifier(database)} WITH (FORCE)`);
    try {
      await client.query(`ALTER DATABASE ${client.escapeIdentifier(scratchName)} RENAME TO ${client.escapeIdentifier(database)}`);
    } catch (err) {
      // Something made the database again in between (a stack starting): the restored copy is kept under its scratch name.
      throw new BackupError(`putting the restored copy in place failed: ${(err as Error).message}
`
        + `the restored, migrated copy is database ${scratchName}: stop whatever uses ${database}, drop it and rename ${scratchName} to ${database}`);
    }
  });
  return { database, ...result };
}

/** 1.2 MiB, 530 KiB, 812 B. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = -1;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}
