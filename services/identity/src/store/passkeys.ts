import type { Db, PrismaClient } from '@floe/db';

// A person's passkeys (see the schema's comment on Passkey): added under the
// person's row lock, so the limit holds for registrations racing each other;
// a sign-in moves the counter forward by a conditional update.

export interface PasskeyRecord {
  id: string;
  principalId: string;
  publicKey: Uint8Array<ArrayBuffer>;
  counter: bigint;
  transports: string[];
  name: string;
  deviceType: string;
  backedUp: boolean;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export function passkeysOf(db: Db, principalId: string): Promise<PasskeyRecord[]> {
  return db.passkey.findMany({ where: { principalId }, orderBy: { createdAt: 'asc' } });
}

export function passkeyById(db: Db, id: string): Promise<PasskeyRecord | null> {
  return db.passkey.findUnique({ where: { id } });
}

export function countPasskeys(db: Db, principalId: string): Promise<number> {
  return db.passkey.count({ where: { principalId } });
}

export type AddOutcome = 'added' | 'exists' | 'limit';

/** Adds a passkey unless its credential is registered already or the person holds `limit`; under the person's row lock. */
export async function addPasskey(prisma: PrismaClient, p: Omit<PasskeyRecord, 'createdAt' | 'lastUsedAt'>, limit: number): Promise<AddOutcome> {
  return prisma.$transaction(async (tx) => {
    await tx.$queryRaw`SELECT id FROM principals WHERE id = ${p.principalId} FOR UPDATE`;
    if (await tx.passkey.findUnique({ where: { id: p.id }, select: { id: true } })) return 'exists';
    if ((await tx.passkey.count({ where: { principalId: p.principalId } })) >= limit) return 'limit';
    await tx.passkey.create({ data: p });
    return 'added';
  });
}

export async function renamePasskey(db: Db, principalId: string, id: string, name: string): Promise<boolean> {
  const { count } = await db.passkey.updateMany({ where: { id, principalId }, data: { name } });
  return count === 1;
}

export async function deletePasskey(db: Db, principalId: string, id: string): Promise<boolean> {
  const { count } = await db.passkey.deleteMany({ where: { id, principalId } });
  return count === 1;
}

/** A sign-in with the passkey: its counter moves to `counter` (a counter that does not move forward is left as it was: 0 from authenticators that keep none). */
export async function usePasskey(db: Db, id: string, counter: number): Promise<void> {
  await db.passkey.update({ where: { id }, data: { lastUsedAt: new Date(), ...(counter > 0 ? { counter: BigInt(counter) } : {}) } });
}

export async function removePasskeysOf(db: Db, principalId: string): Promise<number> {
  return (await db.passkey.deleteMany({ where: { principalId } })).count;
}
