// The database package: the generated Prisma client and the offline migration
// runner (SQL migrations, then the data migration that seals stored secrets).
// Sealing itself is `@floe/db/sealed`, importable without the Prisma client;
// the deployables' pg pool is packages/http's createPool.
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from './generated/client';

export * from './generated/client';
export { applyMigrations, createMigration, diffSchema, dropDatabase, ensureDatabase, migrationsDir } from './migrate';
export type { ApplyOptions } from './migrate';
export { migrateDatabase, sealStoredSecrets } from './stored-secrets';
export type { SealReport } from './stored-secrets';

/** What a store function reads and writes through: the client, or the transaction a domain function holds. */
export type Db = PrismaClient | Prisma.TransactionClient;

/** A PrismaClient over a process's own pg pool, so Prisma and the raw SQL that remains share one pool. */
export function prismaOver(pool: ConstructorParameters<typeof PrismaPg>[0]): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/** A PrismaClient over a pg pool of `poolSize` connections (Prisma 7 needs a driver adapter). */
export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
}
