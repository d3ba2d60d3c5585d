import type { Db, Prisma } from '@floe/db';

// Invitations to organisations; only the token's hash is kept.

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
