import type { Db } from '@floe/db';

// Login sessions (see the schema's comment): created at login, rotated on
// every refresh by a compare-and-set on the current refresh hash, revoked by
// logout, deletion, a password reset or change, or a reused refresh token.

export interface SessionRecord {
  id: string;
  principalId: string;
  refreshHash: string;
  previousRefreshHash: string | null;
  rotatedAt: Date | null;
  createdAt: Date;
  lastUsedAt: Date;
  expiresAt: Date;
  signedInAt: Date;
  revokedAt: Date | null;
  revokeReason: string | null;
  userAgent: string | null;
  ip: string | null;
}

export function insertSession(db: Db, s: { id: string; principalId: string; refreshHash: string; expiresAt: Date; userAgent: string | null; ip: string | null }): Promise<SessionRecord> {
  return db.session.create({ data: s });
}

export function sessionById(db: Db, id: string): Promise<SessionRecord | null> {
  return db.session.findUnique({ where: { id } });
}

/** Moves the session to a new refresh secret if `currentHash` is still its current one; false when another refresh got there first. */
export async function rotateRefresh(db: Db, id: string, currentHash: string, nextHash: string, expiresAt: Date): Promise<boolean> {
  const now = new Date();
  const { count } = await db.session.updateMany({
    where: { id, refreshHash: currentHash, revokedAt: null, expiresAt: { gt: now } },
    data: { refreshHash: nextHash, previousRefreshHash: currentHash, rotatedAt: now, lastUsedAt: now, expiresAt },
  });
  return count === 1;
}

export async function revokeSession(db: Db, id: string, reason: string, principalId?: string): Promise<boolean> {
  const { count } = await db.session.updateMany({ where: { id, revokedAt: null, ...(principalId ? { principalId } : {}) }, data: { revokedAt: new Date(), revokeReason: reason } });
  return count === 1;
}

/** Revokes every live session of a person but `except`; how many. */
export async function revokeSessionsOf(db: Db, principalId: string, reason: string, except: string | null = null): Promise<number> {
  const { count } = await db.session.updateMany({
    where: { principalId, revokedAt: null, ...(except ? { id: { not: except } } : {}) }, data: { revokedAt: new Date(), revokeReason: reason },
  });
  return count;
}

/** A person's live sessions, newest first. */
export function liveSessionsOf(db: Db, principalId: string): Promise<SessionRecord[]> {
  return db.session.findMany({ where: { principalId, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
}
