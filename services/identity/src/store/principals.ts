import type { Db } from '@floe/db';

// Principal rows: people, agents, tool hosts and operators.

export type PrincipalKind = 'human' | 'agent' | 'mcp' | 'operator';

export interface PrincipalRecord {
  principalId: string;
  kind: PrincipalKind;
  email: string | null;
  displayName: string | null;
  status: 'active' | 'suspended' | 'deleted';
  createdAt: Date;
  suspendedAt: Date | null;
}

const record = { id: true, kind: true, email: true, displayName: true, status: true, createdAt: true, suspendedAt: true } as const;
const toRecord = ({ id, ...p }: { id: string } & Omit<PrincipalRecord, 'principalId'>): PrincipalRecord => ({ principalId: id, ...p });

export async function insertPrincipal(db: Db, p: { id: string; kind: PrincipalKind; email: string | null; displayName: string | null }): Promise<PrincipalRecord> {
  return toRecord(await db.principal.create({ data: p, select: record }));
}

/** Suspends a principal that is not deleted, keeping the first suspension time; null when there is no such principal. */
export async function suspendPrincipal(db: Db, principalId: string): Promise<PrincipalRecord | null> {
  // Raw: COALESCE keeps the first suspension time in one statement.
  await db.$executeRaw`
    UPDATE principals SET status = 'suspended', suspended_at = COALESCE(suspended_at, now())
     WHERE id = ${principalId} AND status <> 'deleted'`;
  const p = await db.principal.findUnique({ where: { id: principalId }, select: record });
  return p ? toRecord(p) : null;
}

/** The live (not deleted) account holding this address, if any. */
export async function accountByEmail(db: Db, email: string): Promise<PrincipalRecord | null> {
  const p = await db.principal.findFirst({ where: { email, status: { not: 'deleted' } }, select: record, orderBy: { createdAt: 'asc' } });
  return p ? toRecord(p) : null;
}
