import type { Prisma } from '@floe/db';
import type { ProjectRow } from '../resolve';

// Projects: their rows, through the Prisma client. A transaction's client
// (`Prisma.TransactionClient`) is passed in by the domain function that
// holds the creation lock.

type Tx = Prisma.TransactionClient;

/** Serializes project creation in one organisation (or one owner's projects outside any) for the rest of the transaction. */
export async function lockProjectScope(tx: Tx, scopeKey: string): Promise<void> {
  // Raw: Prisma has no advisory locks.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`projects:${scopeKey}`}))`;
}

/** The projects of an organisation, or of an owner outside any. */
export function projectsInScope(tx: Tx, scope: { orgId: string | null; ownerId: string }): Promise<Array<{ id: string; name: string }>> {
  return tx.project.findMany({
    where: scope.orgId ? { orgId: scope.orgId } : { orgId: null, ownerId: scope.ownerId },
    select: { id: true, name: true },
  });
}

export function insertProject(tx: Tx, p: Omit<ProjectRow, 'createdAt'>): Promise<ProjectRow> {
  return tx.project.create({ data: p });
}
