// A database of its own for a test file that needs the real Postgres: made
// with the real migrations before the file's tests, dropped after them.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll } from '@jest/globals';
import { applyMigrations, dropDatabase, ensureDatabase } from './migrate';
import { createPrisma, type PrismaClient } from './index';

const TIMEOUT = 30_000;

/** Registers the file's setup and teardown; `prisma()` is the client once the tests run. */
export function throwawayDatabase(label: string, poolMax = 4): { prisma: () => PrismaClient; url: string } {
  const server = process.env.TEST_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432';
  const url = `${server}/floe_test_${label}_${randomBytes(4).toString('hex')}`;
  let client: PrismaClient | undefined;
  beforeAll(async () => {
    await ensureDatabase(url);
    await applyMigrations(url);
    client = createPrisma(url, poolMax);
  }, TIMEOUT);
  afterAll(async () => {
    await client?.$disconnect();
    await dropDatabase(url);
  }, TIMEOUT);
  return {
    url,
    prisma: () => {
      if (!client) throw new Error('the throwaway database is made in beforeAll: use prisma() inside a test');
      return client;
    },
  };
}
