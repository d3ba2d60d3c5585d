import type { PrismaClient } from '@floe/db';

// The lock that serialises changes to one catalog's blob-bucket lifecycle.
// The store refuses a lifecycle change while another one to the same bucket
// is being applied (20 concurrent PUTs answered several 502s), and a change's
// "previous" count is only true if nothing changes between its read and its
// write, so set and clear run one at a time per catalog.

/** Runs `fn` holding the catalog's lifecycle lock (a transaction-scoped advisory lock, released when `fn` ends). */
export function underLifecycleLock<T>(prisma: PrismaClient, warehouseId: string, fn: () => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    // Raw: Prisma has no advisory locks.
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`lifecycle:${warehouseId}`}))`;
    return fn();
  }, { maxWait: 15_000, timeout: 30_000 });
}
