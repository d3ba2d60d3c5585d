// The database package: the generated Prisma client and the offline migration
// runner (the deployables' pg pool is packages/http's createPool).
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient } from './generated/client';

export * from './generated/client';
export { applyMigrations, createMigration, diffSchema, dropDatabase, ensureDatabase, migrationsDir } from './migrate';
export type { ApplyOptions } from './migrate';

/** A PrismaClient over a pg pool of `poolSize` connections (Prisma 7 needs a driver adapter). */
export function createPrisma(databaseUrl: string, poolSize = 10): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg({ connectionString: databaseUrl, max: poolSize }) });
}
