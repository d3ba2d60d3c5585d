import type { Db } from '@floe/db';

// A person's second factor (see the schema's comments on TotpFactor and
// BackupCode). Every acceptance is one conditional UPDATE, so of any number
// of requests carrying the same code at once exactly one is let through.

export interface TotpRecord {
  principalId: string;
  /** Sealed with the deployment key (packages/db sealed.ts). */
  secret: string;
  startedAt: Date;
  enabledAt: Date | null;
  lastStep: bigint | null;
}

export function totpOf(db: Db, principalId: string): Promise<TotpRecord | null> {
  return db.totpFactor.findUnique({ where: { principalId } });
}

/**
 * A new enrolment's sealed secret, replacing an unconfirmed one; false (and
 * nothing written) when the factor is already on.
 */
export async function startTotp(db: Db, principalId: string, sealedSecret: string): Promise<boolean> {
  const { count } = await db.totpFactor.updateMany({
    where: { principalId, enabledAt: null },
    data: { secret: sealedSecret, startedAt: new Date(), lastStep: null },
  });
  if (count === 1) return true;
  const created = await db.totpFactor.createMany({ data: [{ principalId, secret: sealedSecret }], skipDuplicates: true });
  return created.count === 1;
}

/** Turns on the enrolment started at `startedAt` with a code of `step`; false when another request (or a new start) got there first. */
export async function enableTotp(db: Db, principalId: string, startedAt: Date, step: number): Promise<Date | null> {
  const now = new Date();
  const { count } = await db.totpFactor.updateMany({
    where: { principalId, startedAt, enabledAt: null },
    data: { enabledAt: now, lastStep: BigInt(step) },
  });
  return count === 1 ? now : null;
}

/** Accepts a code of `step` once: false when that step (or a later one) was already used. */
export async function useTotpStep(db: Db, principalId: string, step: number): Promise<boolean> {
  const { count } = await db.totpFactor.updateMany({
    where: { principalId, enabledAt: { not: null }, OR: [{ lastStep: null }, { lastStep: { lt: BigInt(step) } }] },
    data: { lastStep: BigInt(step) },
  });
  return count === 1;
}

/** The backup codes in force, by hash: replaces every earlier one. */
export async function replaceBackupCodes(db: Db, principalId: string, hashes: string[]): Promise<number> {
  const { count } = await db.backupCode.deleteMany({ where: { principalId } });
  await db.backupCode.createMany({ data: hashes.map((hash) => ({ hash, principalId })) });
  return count;
}

/** Spends a backup code; false when it is not the person's or was used. */
export async function useBackupCode(db: Db, principalId: string, hash: string): Promise<boolean> {
  const { count } = await db.backupCode.updateMany({ where: { hash, principalId, usedAt: null }, data: { usedAt: new Date() } });
  return count === 1;
}

export async function backupCodesLeft(db: Db, principalId: string): Promise<{ remaining: number; generatedAt: Date | null }> {
  const [remaining, newest] = await Promise.all([
    db.backupCode.count({ where: { principalId, usedAt: null } }),
    db.backupCode.findFirst({ where: { principalId }, orderBy: { createdAt: 'desc' }, select: { createdAt: true } }),
  ]);
  return { remaining, generatedAt: newest?.createdAt ?? null };
}

/** Removes the factor and its backup codes (disable, account deletion); how many backup codes went. */
export async function removeSecondFactor(db: Db, principalId: string): Promise<{ removed: boolean; backupCodes: number }> {
  const totp = await db.totpFactor.deleteMany({ where: { principalId } });
  const codes = await db.backupCode.deleteMany({ where: { principalId } });
  return { removed: totp.count === 1, backupCodes: codes.count };
}
