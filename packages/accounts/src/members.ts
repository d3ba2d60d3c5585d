import { Prisma, type Db, type PrismaClient } from '@floe/db';

// An organisation's members (people and tokens) and their roles. Role
// changes and removals run one at a time per organisation, under the
// organisation row's lock, so "at least one human admin" holds against
// concurrent demotions.

export interface MemberRecord {
  principalId: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator';
  email: string | null;
  displayName: string | null;
  role: 'admin' | 'member';
  joinedVia: string;
  joinedAt: Date;
}

/** The organisation's members, oldest first; or only `principalId`. */
export async function membersOf(db: Db, orgId: string, principalId?: string): Promise<MemberRecord[]> {
  const rows = await db.membership.findMany({
    relationLoadStrategy: 'join',
    where: { orgId, ...(principalId ? { principalId } : {}), principal: { status: { not: 'deleted' } } },
    orderBy: [{ createdAt: 'asc' }, { principalId: 'asc' }],
    select: { principalId: true, role: true, joinedVia: true, createdAt: true, principal: { select: { kind: true, email: true, displayName: true } } },
  });
  return rows.map((r) => ({
    principalId: r.principalId, kind: r.principal.kind, email: r.principal.email, displayName: r.principal.displayName,
    role: r.role as MemberRecord['role'], joinedVia: r.joinedVia, joinedAt: r.createdAt,
  }));
}

/** Runs `work` holding the organisation row's lock (membership changes of one organisation, one at a time). */
export function underOrganizationLock<T>(prisma: PrismaClient, orgId: string, work: (tx: Prisma.TransactionClient) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    // Raw: Prisma has no row locks.
    await tx.$queryRaw`SELECT 1 FROM organizations WHERE id = ${orgId} FOR NO KEY UPDATE`;
    return work(tx);
  }, { maxWait: 10_000, timeout: 15_000 });
}

/** Human admins of the organisation other than `except` (tokens never count for last-admin protection). */
export function otherHumanAdmins(db: Db, orgId: string, except: string): Promise<number> {
  return db.membership.count({ where: { orgId, role: 'admin', principalId: { not: except }, principal: { kind: 'human', status: 'active' } } });
}

export async function setRole(db: Db, orgId: string, principalId: string, role: 'admin' | 'member'): Promise<void> {
  await db.membership.updateMany({ where: { orgId, principalId }, data: { role } });
}

/** Removes the membership and the person's grants on the organisation's catalogs; grants removed. */
export async function removeMember(db: Db, orgId: string, principalId: string): Promise<number> {
  await db.membership.deleteMany({ where: { orgId, principalId } });
  const warehouses = await db.warehouse.findMany({ where: { orgId }, select: { id: true } });
  const { count } = await db.warehouseGrant.deleteMany({ where: { principalId, warehouseId: { in: warehouses.map((w) => w.id) } } });
  return count;
}

export async function updateOrganization(db: Db, orgId: string, data: { name?: string; domainJoin?: boolean }): Promise<void> {
  await db.organization.update({ where: { id: orgId }, data });
}

export function organizationById(db: Db, orgId: string) {
  return db.organization.findUnique({ where: { id: orgId }, select: { id: true, name: true, handle: true, status: true, domainJoin: true, createdAt: true } });
}

/** Who made this member (an agent's creator); null for none recorded or no such member. */
export async function creatorOf(db: Db, orgId: string, principalId: string): Promise<string | null> {
  return (await db.membership.findUnique({ where: { orgId_principalId: { orgId, principalId } }, select: { createdBy: true } }))?.createdBy ?? null;
}

/** Whether the person already belongs to the organisation. */
export async function isMember(db: Db, orgId: string, principalId: string): Promise<boolean> {
  return (await db.membership.count({ where: { orgId, principalId } })) > 0;
}

export async function addMembership(db: Db, m: { orgId: string; principalId: string; role: 'admin' | 'member'; joinedVia: string; createdBy: string | null; sourceRef?: string }): Promise<void> {
  await db.membership.create({ data: m });
}

/** Adds the membership unless the principal is a member already: the key decides, so concurrent joins make one; whether this one did. */
export async function joinOnce(db: Db, m: { orgId: string; principalId: string; role: 'admin' | 'member'; joinedVia: string; createdBy: string | null }): Promise<boolean> {
  const { count } = await db.membership.createMany({ data: [m], skipDuplicates: true });
  return count === 1;
}
