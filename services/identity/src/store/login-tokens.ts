import type { Db, Prisma } from '@floe/db';

// Set-password (`welcome`) and reset links; only the token's hash is kept.

export type LinkPurpose = 'welcome' | 'reset';

export interface LoginTokenRecord {
  tokenHash: string;
  purpose: LinkPurpose;
  email: string;
  principalId: string | null;
  details: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
}

export async function insertLoginToken(db: Db, t: { tokenHash: string; purpose: LinkPurpose; email: string; principalId: string | null; details: Record<string, unknown>; expiresAt: Date }): Promise<void> {
  await db.loginToken.create({ data: { ...t, details: t.details as Prisma.InputJsonObject } });
}

/** The newest link of an address for a purpose (the re-send rule reads its age; a restarted sign-up its details). */
export async function newestLoginToken(db: Db, email: string, purpose: LinkPurpose): Promise<LoginTokenRecord | null> {
  const r = await db.loginToken.findFirst({ where: { email, purpose }, orderBy: { createdAt: 'desc' } });
  return r ? { ...r, purpose: r.purpose as LinkPurpose, details: (r.details ?? {}) as Record<string, unknown> } : null;
}

/** A link by its token's hash, its row locked until the transaction ends: one use wins. */
export async function lockLoginToken(tx: Prisma.TransactionClient, tokenHash: string): Promise<LoginTokenRecord | null> {
  // Raw: Prisma has no row locks.
  const rows = await tx.$queryRaw<Array<{ token_hash: string; purpose: string; email: string; principal_id: string | null; details: Prisma.JsonValue; created_at: Date; expires_at: Date; used_at: Date | null }>>`
    SELECT token_hash, purpose, email, principal_id, details, created_at, expires_at, used_at FROM login_tokens WHERE token_hash = ${tokenHash} FOR UPDATE`;
  const r = rows[0];
  return r ? {
    tokenHash: r.token_hash, purpose: r.purpose as LinkPurpose, email: r.email, principalId: r.principal_id,
    details: (r.details ?? {}) as Record<string, unknown>, createdAt: r.created_at, expiresAt: r.expires_at, usedAt: r.used_at,
  } : null;
}

export async function spendLoginToken(db: Db, tokenHash: string): Promise<void> {
  await db.loginToken.updateMany({ where: { tokenHash, usedAt: null }, data: { usedAt: new Date() } });
}
