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

type MemberRow = { principal_id: string; kind: MemberRecord['kind']; email: string | null; display_name: string | null; role: MemberRecord['role']; joined_via: string; joined_at: Date };
const toRecord = (r: MemberRow): MemberRecord => ({
  principalId: r.principal_id, kind: r.kind, email: r.email, displayName: r.display_name, role: r.role, joinedVia: r.joined_via, joinedAt: r.joined_at,
});

/** The organisation's members, oldest first; or only `principalId`. */
export async function membersOf(db: Db, orgId: string, principalId?: string): Promise<MemberRecord[]> {
  // Raw: joins principals (no relation declared).
  const rows = await db.$queryRaw<MemberRow[]>`
    SELECT m.principal_id, p.kind::text AS kind, p.email, p.display_name, m.role, m.joined_via, m.created_at AS joined_at
      FROM memberships m JOIN principals p ON p.id = m.principal_id
     WHERE m.org_id = ${orgId} AND p.status <> 'deleted' ${principalId ? Prisma.sql`AND m.principal_id = ${principalId}` : Prisma.empty}
     ORDER BY m.created_at, m.principal_id`;
  return rows.map(toRecord);
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
export async function otherHumanAdmins(db: Db, orgId: string, except: string): Promise<number> {
  // Raw: joins principals (no relation declared).
  const rows = await db.$queryRaw<Array<{ n: number }>>`
    SELECT count(*)::int AS n FROM memberships m JOIN principals p ON p.id = m.principal_id
     WHERE m.org_id = ${orgId} AND m.role = 'admin' AND m.principal_id <> ${except} AND p.kind = 'human' AND p.status = 'active'`;
  return rows[0].n;
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
