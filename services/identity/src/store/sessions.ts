import type { Db, PrismaClient } from '@floe/db';
import { retireRefreshHash } from './retired-refresh';

// Login sessions (see the schema's comment): created at login, rotated on
// every refresh by a compare-and-set on the current refresh hash (the hash it
// replaces retired in the same transaction), revoked by logout, deletion, a
// password reset or change, or a reused refresh token.

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

/**
 * Moves the session to a new refresh secret if `currentHash` is still its
 * current one, and retires `currentHash` with it; false when another refresh
 * got there first (then nothing is written).
 */
export async function rotateRefresh(db: PrismaClient, id: string, currentHash: string, nextHash: string, expiresAt: Date): Promise<boolean> {
  const now = new Date();
  return db.$transaction(async (tx) => {
    const { count } = await tx.session.updateMany({
      where: { id, refreshHash: currentHash, revokedAt: null, expiresAt: { gt: now } },
      data: { refreshHash: nextHash, previousRefreshHash: currentHash, rotatedAt: now, lastUsedAt: now, expiresAt },
    });
    if (count !== 1) return false;
    await retireRefreshHash(tx, currentHash, { sessionId: id });
    return true;
  });
}

/** Reauthentication: the live session's sign-in moves to now; null when it is not the person's live session. */
export async function markSignedIn(db: Db, id: string, principalId: string): Promise<Date | null> {
  const now = new Date();
  const { count } = await db.session.updateMany({ where: { id, principalId, revokedAt: null, expiresAt: { gt: now } }, data: { signedInAt: now, lastUsedAt: now } });
  return count === 1 ? now : null;
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

/** Reasons a session ends for which its address stops counting as the person's own: the password it was opened with is distrusted. */
const DISTRUSTED = ['password_reset', 'password_change'];

/**
 * The client addresses of the person's sessions opened since `since`, newest
 * first (at most `limit` sessions read), but not of sessions a password reset
 * or change ended.
 */
export async function sessionAddressesOf(db: Db, principalId: string, since: Date, limit: number): Promise<string[]> {
  const rows = await db.session.findMany({
    where: { principalId, createdAt: { gt: since }, ip: { not: null }, OR: [{ revokeReason: null }, { revokeReason: { notIn: DISTRUSTED } }] },
    select: { ip: true }, orderBy: { createdAt: 'desc' }, take: limit,
  });
  return [...new Set(rows.map((r) => r.ip!))];
}

/** A person's live sessions, newest first. */
export function liveSessionsOf(db: Db, principalId: string): Promise<SessionRecord[]> {
  return db.session.findMany({ where: { principalId, revokedAt: null, expiresAt: { gt: new Date() } }, orderBy: [{ createdAt: 'desc' }, { id: 'asc' }] });
}
