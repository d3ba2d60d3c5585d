import type { AccessContext } from '@floe/accounts';
import type { Db, Prisma } from '@floe/db';

// Projects: their rows, through the Prisma client. A transaction's client
// (`Prisma.TransactionClient`) is passed in by the domain function that
// holds the creation lock.

type Tx = Prisma.TransactionClient;

export interface ProjectRow {
  id: string;
  name: string;
  provider: string;
  region: string;
  orgId: string | null;
  ownerId: string;
  createdAt: Date;
}


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

/** Projects the caller reaches (its organisations' and those it owns outside any), oldest first; or only those whose id or name is `idOrName`. */
export function reachableProjects(db: Db, ctx: AccessContext, idOrName?: string): Promise<ProjectRow[]> {
  return db.project.findMany({
    where: {
      OR: [{ orgId: { in: ctx.memberships.map((m) => m.orgId) } }, { orgId: null, ownerId: ctx.principalId }],
      ...(idOrName !== undefined ? { AND: [{ OR: [{ id: idOrName }, { name: idOrName }] }] } : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** Where a project's data lives; null for no such project. */
export function placementOf(db: Db, projectId: string): Promise<{ provider: string; region: string } | null> {
  return db.project.findUnique({ where: { id: projectId }, select: { provider: true, region: true } });
}

/** An erased organisation's projects gone (its catalogs were torn down first), in the erasure's transaction. */
export async function deleteProjectsOf(tx: Tx, orgId: string): Promise<number> {
  return (await tx.project.deleteMany({ where: { orgId } })).count;
}
