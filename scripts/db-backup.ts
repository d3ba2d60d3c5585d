// npm run db:backup [-- <file>]            → backup: pg_dump (custom format) of the stack's database
// npm run db:restore -- <file> [--force]   → restore: that file in place of the stack's database, migrated to this release
// The database is the one the stack's settings name (DATABASE_URL, default
// postgresql://postgres@127.0.0.1:5432/floe); the data keys that open its
// sealed secrets are FLOE_DATA_KEYS or .data/data-keys. See docs/backup.md.
import { isAbsolute, relative, resolve } from 'node:path';
import { ConfigError, loadConfig } from '@floe/config';
import { Keyring } from '@floe/db/sealed';
import { BackupError, backupDatabase, formatBytes, restoreDatabase } from './lib/db-backup';
import { redact } from './lib/infra';
import { stackEnvironment, stackPaths } from './lib/stack-env';

const say = (line: string) => process.stdout.write(`[db] ${line}\n`);
// npm runs scripts from the package root; a file named on the command line is relative to where the command was typed.
const typedIn = process.env.INIT_CWD ?? process.cwd();
const fromUser = (file: string) => (isAbsolute(file) ? file : resolve(typedIn, file));
const shown = (file: string) => {
  const rel = relative(typedIn, file);
  return rel.startsWith('..') ? file : rel;
};
const paths = stackPaths();

async function backup(file: string | undefined): Promise<void> {
  const { databaseUrl } = loadConfig();
  say(`backing up ${redact(databaseUrl)}`);
  const out = await backupDatabase({ databaseUrl, dataDir: paths.dataDir, file: file ? fromUser(file) : undefined });
  say(`wrote ${shown(out.file)} (${formatBytes(out.bytes)})`);
  say('the stored secrets in it are sealed: keep the data keys (FLOE_DATA_KEYS, or .data/data-keys) safe, apart from the backup');
}

async function restore(file: string | undefined, force: boolean): Promise<void> {
  if (!file) throw new BackupError('usage: npm run db:restore -- <file> [--force]');
  // The stack's own settings: the data keys that opened its secrets open the backup's.
  const { config } = stackEnvironment(paths);
  say(`restoring ${redact(config.databaseUrl)} from ${shown(fromUser(file))}`);
  const out = await restoreDatabase({ databaseUrl: config.databaseUrl, file: fromUser(file), keyring: new Keyring(config.dataKeys), paths, force, say });
  say(`restored database ${out.database}`);
  say(out.applied.length ? `applied migrations the backup predates: ${out.applied.join(', ')}` : 'its schema was already this release\'s');
  if (out.sealed.sealed) say(`sealed ${out.sealed.sealed} stored secret(s) the backup held in plain text`);
  say('credentials rotated since the backup was taken are back to their older values: rotate them again (docs/backup.md)');
}

async function main(): Promise<void> {
  const [command, ...rest] = process.argv.slice(2);
  const force = rest.includes('--force');
  const args = rest.filter((a) => a !== '--force');
  const unknown = args.find((a) => a.startsWith('--'));
  if (unknown) throw new BackupError(`unknown option ${unknown}`);
  if (args.length > 1) throw new BackupError(`one file, not ${args.length}: ${args.join(' ')}`);
  if (command === 'backup' && !force) return backup(args[0]);
  if (command === 'restore') return restore(args[0], force);
  throw new BackupError('usage: tsx scripts/db-backup.ts backup [<file>] | restore <file> [--force]');
}

main().catch((err) => {
  // An operator's failure (a missing file, a running stack, Postgres down) is its message; anything else is a bug, with its stack.
  const expected = err instanceof BackupError || err instanceof ConfigError;
  process.stderr.write(`[db] ${expected ? (err as Error).message : (err as Error).stack ?? err}\n`);
  process.exit(1);
});
