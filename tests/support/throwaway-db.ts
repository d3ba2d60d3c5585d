import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { applyMigrations, dropDatabase, ensureDatabase, prismaOver, type PrismaClient } from '@floe/db';

// A test file's own database on the real Postgres, with the real migrations:
// made before its tests, dropped after them. For store and job tests that
// need tables but no running stack.

export interface ThrowawayDatabase {
  pool: () => pg.Pool;
  prisma: () => PrismaClient;
}

export function throwawayDatabase(label: string): ThrowawayDatabase {
  const url = `postgresql://postgres@127.0.0.1:5432/floe_test_${label}_${randomBytes(4).toString('hex')}`;
  let pool: pg.Pool | undefined;
  let prisma: PrismaClient | undefined;
  beforeAll(async () => {
    await ensureDatabase(url);
    await applyMigrations(url);
    pool = new pg.Pool({ connectionString: url, max: 4 });
    pool.on('error', () => undefined);
    prisma = prismaOver(pool);
  }, 60_000);
  afterAll(async () => {
    await prisma?.$disconnect();
    await pool?.end();
    await dropDatabase(url);
  });
  return { pool: () => pool!, prisma: () => prisma! };
}
