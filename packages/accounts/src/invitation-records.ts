import type { Db, Prisma } from '@floe/db';

// Invitations to organisations; only the token's hash is kept. An
// organisation invites under its own lock (`lockInvitations`), so the count
// of its pending invitations, the one pending invitation per address and the
// pause between two mails to an address hold under concurrent invites.

export interface InvitationRecord {
  id: string;
  orgId: string;
  email: string;
  role: 'admin' | 'member';
  invitedBy: string;
  createdAt: Date;
  expiresAt: Date;
  acceptedAt: Date | null;
  acceptedBy: string | null;
}

const select = { id: true, orgId: true, email: true, role: true, invitedBy: true, createdAt: true, expiresAt: true, acceptedAt: true, acceptedBy: true } as const;
const toRecord = (r: Omit<InvitationRecord, 'role'> & { role: string }): InvitationRecord => ({ ...r, role: r.role === 'admin' ? 'admin' : 'member' });

export async function insertInvitation(db: Db, i: { id: string; orgId: string; email: string; role: string; tokenHash: string; invitedBy: string; expiresAt: Date }): Promise<InvitationRecord> {
  return toRecord(await db.invitation.create({ data: i, select }));
}

/** Held until the transaction ends: an organisation's invitations are made one at a time. */
export async function lockInvitations(tx: Prisma.TransactionClient, orgId: string): Promise<void> {
  // Raw: Prisma has no advisory locks.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`invitations:${orgId}`}, 0))`;
}

const pending = () => ({ acceptedAt: null, expiresAt: { gt: new Date() } });

/** Pending invitations of an organisation (not accepted, not expired), other than to `except`. */
export function countPendingInvitations(db: Db, orgId: string, except?: string): Promise<number> {
  return db.invitation.count({ where: { orgId, ...pending(), ...(except ? { NOT: { email: { equals: except, mode: 'insensitive' } } } : {}) } });
}

/** The newest pending invitation of an organisation to an address (any case), if any. */
export async function pendingInvitationTo(db: Db, orgId: string, email: string): Promise<InvitationRecord | null> {
  const r = await db.invitation.findFirst({ where: { orgId, email: { equals: email, mode: 'insensitive' }, ...pending() }, orderBy: { createdAt: 'desc' }, select });
  return r ? toRecord(r) : null;
}

/** Ends the pending invitations of an organisation to an address (a new one replaces them): their tokens answer `invitation_expired`. */
export async function expirePendingTo(db: Db, orgId: string, email: string): Promise<number> {
  const { count } = await db.invitation.updateMany({ where: { orgId, email: { equals: email, mode: 'insensitive' }, ...pending() }, data: { expiresAt: new Date() } });
  return count;
}

export async function invitationsOf(db: Db, orgId: string): Promise<InvitationRecord[]> {
  return (await db.invitation.findMany({ where: { orgId }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }], select })).map(toRecord);
}

/** An invitation by its token's hash, locked until the transaction ends (one acceptance wins). */
export async function lockInvitation(tx: Prisma.TransactionClient, tokenHash: string): Promise<InvitationRecord | null> {
  // Raw: Prisma has no row locks.
  const rows = await tx.$queryRaw<Array<{ id: string }>>`SELECT id FROM invitations WHERE token_hash = ${tokenHash} FOR UPDATE`;
  if (!rows[0]) return null;
  return toRecord((await tx.invitation.findUnique({ where: { id: rows[0].id }, select }))!);
}

export async function markAccepted(db: Db, id: string, principalId: string): Promise<void> {
  await db.invitation.updateMany({ where: { id, acceptedAt: null }, data: { acceptedAt: new Date(), acceptedBy: principalId } });
}

/** The inviter's address and whether it was ever proven (identity records it). */
export async function inviterOf(db: Db, principalId: string): Promise<{ email: string | null; displayName: string | null; verified: boolean } | null> {
  const p = await db.principal.findUnique({ where: { id: principalId }, select: { email: true, displayName: true, emailVerifiedAt: true } });
  return p ? { email: p.email, displayName: p.displayName, verified: p.emailVerifiedAt !== null } : null;
}

/** The newest pending, unexpired invitation to an address, if any. */
export async function pendingInvitationFor(db: Db, email: string): Promise<InvitationRecord | null> {
  const r = await db.invitation.findFirst({ where: { email, acceptedAt: null, expiresAt: { gt: new Date() } }, orderBy: { createdAt: 'desc' }, select });
  return r ? toRecord(r) : null;
}

/** An invitation's token hash by its id (to lock it). */
export async function invitationHashOf(db: Db, id: string): Promise<string> {
  return (await db.invitation.findUniqueOrThrow({ where: { id }, select: { tokenHash: true } })).tokenHash;
}
