import type { Db, Prisma } from '@floe/db';

// Pending e-mail codes (sign-up, recovery, linking a provider's identity to
// an account): one per address and purpose, only the code's hash kept.

export type CodePurpose = 'signup' | 'recovery' | 'link';

export interface EmailCodeRecord {
  email: string;
  purpose: CodePurpose;
  codeHash: string;
  attempts: number;
  details: Record<string, unknown>;
  createdAt: Date;
  expiresAt: Date;
}

const toRecord = (r: { email: string; purpose: string; codeHash: string; attempts: number; details: Prisma.JsonValue; createdAt: Date; expiresAt: Date }): EmailCodeRecord => ({
  ...r, purpose: r.purpose as CodePurpose, details: (r.details ?? {}) as Record<string, unknown>,
});

export async function pendingCode(db: Db, email: string, purpose: CodePurpose): Promise<EmailCodeRecord | null> {
  const r = await db.emailCode.findUnique({ where: { email_purpose: { email, purpose } } });
  return r ? toRecord(r) : null;
}

/** The pending code, its row locked until the transaction ends: verifies of one address run one after another. */
export async function lockPendingCode(tx: Prisma.TransactionClient, email: string, purpose: CodePurpose): Promise<EmailCodeRecord | null> {
  // Raw: Prisma has no row locks.
  const rows = await tx.$queryRaw<Array<{ email: string; purpose: string; code_hash: string; attempts: number; details: Prisma.JsonValue; created_at: Date; expires_at: Date }>>`
    SELECT email, purpose, code_hash, attempts, details, created_at, expires_at FROM email_codes WHERE email = ${email} AND purpose = ${purpose} FOR UPDATE`;
  const r = rows[0];
  return r ? toRecord({ email: r.email, purpose: r.purpose, codeHash: r.code_hash, attempts: r.attempts, details: r.details, createdAt: r.created_at, expiresAt: r.expires_at }) : null;
}

/** Replaces the address's code for the purpose (a new start). */
export async function putCode(db: Db, c: Omit<EmailCodeRecord, 'attempts' | 'createdAt'>): Promise<void> {
  const data = { codeHash: c.codeHash, attempts: 0, details: c.details as Prisma.InputJsonObject, createdAt: new Date(), expiresAt: c.expiresAt };
  await db.emailCode.upsert({ where: { email_purpose: { email: c.email, purpose: c.purpose } }, create: { email: c.email, purpose: c.purpose, ...data }, update: data });
}

/** Counts a wrong attempt; the attempts made so far. */
export async function countWrongAttempt(db: Db, email: string, purpose: CodePurpose): Promise<number> {
  const r = await db.emailCode.update({ where: { email_purpose: { email, purpose } }, data: { attempts: { increment: 1 } }, select: { attempts: true } });
  return r.attempts;
}

export async function deleteCode(db: Db, email: string, purpose: CodePurpose): Promise<void> {
  await db.emailCode.deleteMany({ where: { email, purpose } });
}
