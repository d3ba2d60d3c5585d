// pnpm --filter @floe/db migrate          apply pending migrations to DATABASE_URL
// pnpm --filter @floe/db diff <name>      write a migration for schema.prisma changes
import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { applyMigrations, createMigration, dropDatabase, ensureDatabase } from './migrate';

const DEFAULT_URL = 'postgresql://postgres@127.0.0.1:5432/floe';

function withDatabase(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function apply(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_URL;
  const started = Date.now();
  if (await ensureDatabase(databaseUrl)) console.log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  const { applied } = await applyMigrations(databaseUrl, { log: (line) => console.log(line) });
  console.log(applied.length ? `applied ${applied.length} migration(s) in ${Date.now() - started} ms` : 'no pending migrations');
}

// A throwaway database, so the diff never depends on (or touches) the
// developer's own, which may hold drift or half-finished work.
async function diff(name: string | undefined): Promise<void> {
  if (!name) throw new Error('usage: tsx src/migrate-cli.ts diff <name>');
  const scratch = withDatabase(process.env.DATABASE_URL || DEFAULT_URL, `floe_diff_${randomBytes(4).toString('hex')}`);
  await ensureDatabase(scratch);
  try {
    const dir = await createMigration(scratch, name);
    console.log(dir ? `wrote ${relative(process.cwd(), dir)}/migration.sql` : 'schema and migrations are in step');
  } finally {
    await dropDatabase(scratch);
  }
}

const [command, arg] = process.argv.slice(2);
try {
  if (command === 'apply') await apply();
  else if (command === 'diff') await diff(arg);
  else throw new Error('usage: tsx src/migrate-cli.ts apply | diff <name>');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
