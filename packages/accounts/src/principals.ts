import { randomUUID } from 'node:crypto';
import type { Db } from '@floe/db';
import { issueApiKey, type IssuedApiKey } from './api-keys';

// Principal rows: people, agents, tool hosts and operators — written only
// here. Identity (sign-ups, logins, account deletion) and the control plane
// (agents, token records, the one-call sign-up) call these in-process, inside
// the transaction their step belongs to; POST /internal/principals and its
// /suspend (services/identity routes/internal.ts) are thin adapters over them.

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

/** Principal ids are `p_` + 32 hex: the spec's bucket names take 8 hex of them. */
export function newPrincipalId(): string {
  return `p_${randomUUID().replace(/-/g, '')}`;
}

/** A principal with a first API key (its whole key shown once, in `key.apiKey`). */
export async function createPrincipalWithKey(
  db: Db, p: { kind: PrincipalKind; email: string | null; displayName: string | null; label: string; termsVersion?: string | null },
): Promise<{ principal: PrincipalRecord; key: IssuedApiKey }> {
  const principal = await insertPrincipal(db, { id: newPrincipalId(), kind: p.kind, email: p.email, displayName: p.displayName, termsVersion: p.termsVersion });
  return { principal, key: await issueApiKey(db, principal.principalId, p.label) };
}

/** A principal with no key (an OAuth token record: identity mints its access tokens instead). */
export function createPrincipal(db: Db, p: { kind: PrincipalKind; email: string | null; displayName: string | null }): Promise<PrincipalRecord> {
  return insertPrincipal(db, { id: newPrincipalId(), kind: p.kind, email: p.email, displayName: p.displayName });
}

export async function insertPrincipal(
  db: Db, p: { id: string; kind: PrincipalKind; email: string | null; displayName: string | null; termsVersion?: string | null; emailVerified?: boolean },
): Promise<PrincipalRecord> {
  const { termsVersion, emailVerified, ...rest } = p;
  const terms = termsVersion ? { termsVersion, termsAcceptedAt: new Date() } : {};
  const verified = emailVerified ? { emailVerifiedAt: new Date() } : {};
  return toRecord(await db.principal.create({ data: { ...rest, ...terms, ...verified }, select: record }));
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

/**
 * Suspends the principal and, with `revokeKeys`, refuses every key of it at
 * once (an agent's revocation); null when there is no such principal. The
 * caller bumps the credential epoch after its transaction commits.
 */
export async function suspendWithKeys(db: Db, principalId: string, revokeKeys: boolean): Promise<{ principal: PrincipalRecord; keysRevoked: number } | null> {
  const principal = await suspendPrincipal(db, principalId);
  if (!principal) return null;
  return { principal, keysRevoked: revokeKeys ? await revokeKeysOf(db, principalId) : 0 };
}

/** Revokes every live key of the principal at once; how many. */
export async function revokeKeysOf(db: Db, principalId: string): Promise<number> {
  const { count } = await db.apiKey.updateMany({ where: { principalId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count;
}

/** Renames a principal that is not deleted (an agent's name is its display name); false when there is none. */
export async function renamePrincipal(db: Db, principalId: string, displayName: string): Promise<boolean> {
  const { count } = await db.principal.updateMany({ where: { id: principalId, status: { not: 'deleted' } }, data: { displayName } });
  return count > 0;
}

/** The live (not deleted) account holding this address, if any. */
export async function accountByEmail(db: Db, email: string): Promise<PrincipalRecord | null> {
  const p = await db.principal.findFirst({ where: { email, status: { not: 'deleted' } }, select: record, orderBy: { createdAt: 'asc' } });
  return p ? toRecord(p) : null;
}

/** What sessions and password changes read of a person, in one read. */
export async function credentialsOf(db: Db, principalId: string): Promise<{ passwordHash: string | null; status: string; email: string | null; kind: PrincipalKind; termsVersion: string | null } | null> {
  return db.principal.findUnique({ where: { id: principalId }, select: { passwordHash: true, status: true, email: true, kind: true, termsVersion: true } });
}

/** The person's password hash for login, by address (a live account only). */
export async function loginRecordByEmail(db: Db, email: string): Promise<{ id: string; passwordHash: string | null; status: string; kind: PrincipalKind } | null> {
  return db.principal.findFirst({ where: { email, status: { not: 'deleted' } }, select: { id: true, passwordHash: true, status: true, kind: true }, orderBy: { createdAt: 'asc' } });
}

export async function setPasswordHash(db: Db, principalId: string, passwordHash: string): Promise<Date> {
  const at = new Date();
  await db.principal.update({ where: { id: principalId }, data: { passwordHash, passwordChangedAt: at } });
  return at;
}

export async function acceptTerms(db: Db, principalId: string, version: string): Promise<Date> {
  const at = new Date();
  await db.principal.update({ where: { id: principalId }, data: { termsVersion: version, termsAcceptedAt: at } });
  return at;
}

export async function termsOf(db: Db, principalId: string): Promise<{ version: string | null; acceptedAt: Date | null }> {
  const p = await db.principal.findUnique({ where: { id: principalId }, select: { termsVersion: true, termsAcceptedAt: true } });
  return { version: p?.termsVersion ?? null, acceptedAt: p?.termsAcceptedAt ?? null };
}

/** A new person with a password already set (password sign-up). */
export async function insertPersonWithPassword(db: Db, p: { id: string; email: string; displayName: string | null; passwordHash: string; termsVersion: string }): Promise<PrincipalRecord> {
  const now = new Date();
  return toRecord(await db.principal.create({
    data: {
      id: p.id, kind: 'human', email: p.email, displayName: p.displayName, passwordHash: p.passwordHash, passwordChangedAt: now,
      termsVersion: p.termsVersion, termsAcceptedAt: now, emailVerifiedAt: now,
    },
    select: record,
  }));
}

/** Deletes the account at once: the principal marked deleted and every key revoked (sessions: store/sessions.ts). */
export async function markDeleted(db: Db, principalId: string): Promise<{ keysRevoked: number }> {
  const now = new Date();
  await db.principal.update({ where: { id: principalId }, data: { status: 'deleted', deletedAt: now, passwordHash: null } });
  return { keysRevoked: await revokeKeysOf(db, principalId) };
}

/** The person proved they receive mail at their address (a code or a link reached them). */
export async function markEmailVerified(db: Db, principalId: string): Promise<void> {
  await db.principal.updateMany({ where: { id: principalId, emailVerifiedAt: null }, data: { emailVerifiedAt: new Date() } });
}
