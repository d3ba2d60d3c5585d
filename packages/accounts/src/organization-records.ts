import type { Db, Prisma, PrismaClient } from '@floe/db';
import { suspendWithKeys } from './principals';

// Organisations, and what onboarding looks up in one: its first project and
// its live catalog of a given name.

/**
 * Inserts an active organisation with its creator as admin; false (nothing
 * written) when the handle is taken. `alongside` runs in the same transaction
 * once the organisation is made (its audit event).
 */
export async function insertOrganizationWithAdmin(
  prisma: PrismaClient, o: { id: string; name: string; handle: string; createdBy: string }, alongside?: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    // ON CONFLICT DO NOTHING: a taken handle is an answer, not an error.
    const { count } = await tx.organization.createMany({ data: [{ ...o, status: 'active' }], skipDuplicates: true });
    if (count === 0) return false;
    await tx.membership.create({ data: { orgId: o.id, principalId: o.createdBy, role: 'admin', joinedVia: 'creator', createdBy: o.createdBy } });
    await alongside?.(tx);
    return true;
  });
}

/**
 * Inserts a `pending` organisation holding its handle for `createdBy` (the
 * person signing up) until `reservedUntil`, made from `reservedFrom` (the
 * caller's address); false when the handle is taken.
 */
export async function insertPendingOrganization(
  db: Db, o: { id: string; name: string; handle: string; createdBy: string; reservedFrom: string; reservedUntil: Date },
): Promise<boolean> {
  // ON CONFLICT DO NOTHING: a taken handle is an answer, not an error.
  const { count } = await db.organization.createMany({ data: [{ ...o, status: 'pending' }], skipDuplicates: true });
  return count === 1;
}

/** Takes the lock of one caller address's reservations until the transaction ends: they are counted and made one at a time. */
export async function lockReservationsFrom(tx: Prisma.TransactionClient, address: string): Promise<void> {
  // Raw: an advisory lock (Prisma has none).
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`org-reservations:${address}`}))`;
}

/** How many pending organisations reserved from this address have not lapsed. */
export function liveReservationsFrom(db: Db, address: string, now: Date): Promise<number> {
  return db.organization.count({ where: { reservedFrom: address, status: 'pending', reservedUntil: { gt: now } } });
}

/** A pending reservation held again for its person (a sign-up started again): it lapses later. */
export async function extendReservation(db: Db, orgId: string, until: Date): Promise<void> {
  await db.organization.updateMany({ where: { id: orgId, status: 'pending', reservedUntil: { lt: until } }, data: { reservedUntil: until } });
}

/** Removes a pending organisation whose reservation lapsed, freeing its handle; false when it is not one (active, or still held). */
export async function removeLapsedReservation(db: Db, orgId: string, now: Date): Promise<boolean> {
  const { count } = await db.organization.deleteMany({ where: { id: orgId, status: 'pending', reservedUntil: { lte: now } } });
  return count === 1;
}

/** The organisation holding a handle, in any state (a pending one with when its reservation lapses). */
export function organizationByHandle(db: Db, handle: string) {
  return db.organization.findUnique({ where: { handle }, select: { id: true, name: true, handle: true, status: true, createdBy: true, reservedUntil: true } });
}

/** Removes a pending organisation reserved by `principalId` (a sign-up whose code could not be sent); false when there is none. */
export async function deletePendingOrganization(db: Db, orgId: string, principalId: string): Promise<boolean> {
  const { count } = await db.organization.deleteMany({ where: { id: orgId, status: 'pending', createdBy: principalId } });
  return count === 1;
}

/**
 * Makes the pending organisation reserved by `principalId` active with them as
 * its admin; false when there is no such reservation. `alongside` runs in the
 * same transaction once it is active (its audit event).
 */
export async function activatePendingOrganization(
  prisma: PrismaClient, orgId: string, principalId: string, alongside?: (tx: Prisma.TransactionClient) => Promise<void>,
): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const { count } = await tx.organization.updateMany({ where: { id: orgId, status: 'pending', createdBy: principalId }, data: { status: 'active' } });
    if (count === 0) return false;
    await tx.membership.create({ data: { orgId, principalId, role: 'admin', joinedVia: 'creator', createdBy: principalId } });
    await alongside?.(tx);
    return true;
  });
}

/** Which of these handles organisations already hold. */
export async function takenHandles(db: Db, candidates: string[]): Promise<Set<string>> {
  const rows = await db.organization.findMany({ where: { handle: { in: candidates } }, select: { handle: true } });
  return new Set(rows.map((r) => r.handle));
}

/** Per organisation the person belongs to: their role, and how many other members and other human admins (tokens never count) it has. */
export async function standingIn(db: Db, principalId: string): Promise<Array<{ orgId: string; handle: string; role: string; otherMembers: number; otherAdmins: number }>> {
  // Raw: two correlated counts per organisation in one statement.
  const rows = await db.$queryRaw<Array<{ org_id: string; handle: string; role: string; other_members: number; other_admins: number }>>`
    SELECT m.org_id, o.handle, m.role,
           (SELECT count(*)::int FROM memberships x JOIN principals p ON p.id = x.principal_id
             WHERE x.org_id = m.org_id AND x.principal_id <> m.principal_id AND p.kind = 'human' AND p.status <> 'deleted') AS other_members,
           (SELECT count(*)::int FROM memberships x JOIN principals p ON p.id = x.principal_id
             WHERE x.org_id = m.org_id AND x.principal_id <> m.principal_id AND x.role = 'admin' AND p.kind = 'human' AND p.status = 'active') AS other_admins
      FROM memberships m JOIN organizations o ON o.id = m.org_id
     WHERE m.principal_id = ${principalId}`;
  return rows.map((r) => ({ orgId: r.org_id, handle: r.handle, role: r.role, otherMembers: r.other_members, otherAdmins: r.other_admins }));
}

/**
 * Removes the person from every organisation and catalog grant. Organisations
 * left with no person are marked `deleting` for erasure, and their token
 * records (agents, OAuth approvals) are stopped: revoked, out of the
 * organisation and without grants, so nothing keeps working for an
 * organisation nobody answers for. Run in the caller's transaction.
 */
export async function removePerson(tx: Db, principalId: string, leftEmpty: string[]): Promise<{ memberships: number; grants: number; tokensStopped: number }> {
  const memberships = (await tx.membership.deleteMany({ where: { principalId } })).count;
  const grants = (await tx.warehouseGrant.deleteMany({ where: { principalId } })).count;
  let tokensStopped = 0;
  if (leftEmpty.length) {
    const held = await tx.membership.findMany({
      where: { orgId: { in: leftEmpty }, principal: { kind: { in: ['agent', 'mcp'] } } }, select: { principalId: true, principal: { select: { status: true } } },
    });
    const tokens = held.map((m) => m.principalId);
    tokensStopped = held.filter((m) => m.principal.status === 'active').length;
    if (tokens.length) {
      // As an agent's revocation does it: suspended with every key refused.
      for (const id of tokens) await suspendWithKeys(tx, id, true);
      await tx.warehouseGrant.deleteMany({ where: { principalId: { in: tokens } } });
      await tx.membership.deleteMany({ where: { orgId: { in: leftEmpty }, principalId: { in: tokens } } });
    }
    await tx.organization.updateMany({ where: { id: { in: leftEmpty } }, data: { status: 'deleting' } });
  }
  return { memberships, grants, tokensStopped };
}

/** The organisation's stored policy (as written: fields left out hold their defaults), who changed it last, domain join and the claimed mail domains. */
export function orgPolicyRow(db: Db, orgId: string): Promise<{
  policy: unknown; policyUpdatedAt: Date | null; policyUpdatedBy: string | null; domainJoin: boolean;
  domains: Array<{ domain: string; claimedBy: string; claimedAt: Date }>;
} | null> {
  return db.organization.findUnique({
    where: { id: orgId },
    select: { policy: true, policyUpdatedAt: true, policyUpdatedBy: true, domainJoin: true, domains: { select: { domain: true, claimedBy: true, claimedAt: true }, orderBy: { domain: 'asc' } } },
  });
}

/** The policies of a person's active organisations. */
export function organizationPoliciesOf(db: Db, principalId: string): Promise<Array<{ orgId: string; handle: string; name: string; policy: unknown }>> {
  return db.organization.findMany({
    where: { status: 'active', memberships: { some: { principalId } } },
    select: { id: true, handle: true, name: true, policy: true },
    orderBy: { handle: 'asc' },
  }).then((rows) => rows.map((o) => ({ orgId: o.id, handle: o.handle, name: o.name, policy: o.policy })));
}

export async function setOrgPolicy(db: Db, orgId: string, policy: Record<string, string>, by: string): Promise<void> {
  await db.organization.update({ where: { id: orgId }, data: { policy, policyUpdatedAt: new Date(), policyUpdatedBy: by } });
}

/**
 * Erases an organisation marked `deleting` that no one has joined since: its
 * row goes, after `first` removes what other aggregates keep of it (its
 * projects) in the same transaction; false when it is no longer erasable.
 */
export async function eraseOrganization(prisma: PrismaClient, orgId: string, first: (tx: Prisma.TransactionClient) => Promise<unknown>): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    // Raw: the row lock keeps a join racing the erasure from landing in an erased organisation.
    const held = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM organizations WHERE id = ${orgId} AND status = 'deleting' FOR UPDATE`;
    if (!held.length || (await tx.membership.count({ where: { orgId } })) > 0) return false;
    await first(tx);
    await tx.organization.delete({ where: { id: orgId } });
    return true;
  });
}
