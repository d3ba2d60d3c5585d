// pnpm --filter @floe/db migrate          apply pending migrations to DATABASE_URL, then seal plaintext secrets
// pnpm --filter @floe/db reseal           seal every stored secret again under the current data key
// pnpm --filter @floe/db diff <name>      write a migration for schema.prisma changes
// migrate and reseal need FLOE_DATA_KEYS (packages/config/src/data-keys.ts).
import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import pg from 'pg';
import { parseDataKeys } from '@floe/config';
import { createMigration, dropDatabase, ensureDatabase } from './migrate';
import { Keyring } from './sealed';
import { migrateDatabase, sealStoredSecrets } from './stored-secrets';

const DEFAULT_URL = 'postgresql://postgres@127.0.0.1:5432/floe';

function withDatabase(databaseUrl: string, name: string): string {
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

const keyring = () => new Keyring(parseDataKeys(process.env.FLOE_DATA_KEYS ?? ''));

async function apply(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL || DEFAULT_URL;
  const keys = keyring();
  const started = Date.now();
  if (await ensureDatabase(databaseUrl)) console.log(`created database ${new URL(databaseUrl).pathname.slice(1)}`);
  const { applied, sealed } = await migrateDatabase(databaseUrl, keys, { log: (line) => console.log(line) });
  console.log(applied.length ? `applied ${applied.length} migration(s) in ${Date.now() - started} ms` : 'no pending migrations');
  if (sealed.sealed) console.log(`sealed ${sealed.sealed} stored secret(s) under data key ${keys.currentKeyId}`);
}

async function reseal(): Promise<void> {
  const keys = keyring();
  const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL || DEFAULT_URL, max: 1 });
  try {
    const { sealed, resealed } = await sealStoredSecrets(pool, keys, { reseal: true });
    console.log(`every stored secret is sealed under data key ${keys.currentKeyId} (${resealed} resealed, ${sealed} plaintext sealed); keys listed after it can now be dropped`);
  } finally {
    await pool.end();
  }
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
  else if (command === 'reseal') await reseal();
  else if (command === 'diff') await diff(arg);
  else throw new Error('usage: tsx src/migrate-cli.ts apply | reseal | diff <name>');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
}
