import { randomUUID } from 'node:crypto';
import type { Db } from '@floe/db';

// A person's accounts at outside OpenID Connect issuers (see the schema's
// comment on ExternalIdentity): found by the issuer's subject, added once —
// the two unique keys decide between links racing each other.

export interface ExternalIdentityRecord {
  id: string;
  principalId: string;
  issuer: string;
  subject: string;
  email: string | null;
  createdAt: Date;
  lastUsedAt: Date | null;
}

export function identityBySubject(db: Db, issuer: string, subject: string): Promise<ExternalIdentityRecord | null> {
  return db.externalIdentity.findUnique({ where: { issuer_subject: { issuer, subject } } });
}

export function identityOfPersonAt(db: Db, principalId: string, issuer: string): Promise<ExternalIdentityRecord | null> {
  return db.externalIdentity.findUnique({ where: { principalId_issuer: { principalId, issuer } } });
}

export function identitiesOf(db: Db, principalId: string): Promise<ExternalIdentityRecord[]> {
  return db.externalIdentity.findMany({ where: { principalId }, orderBy: { createdAt: 'asc' } });
}

/** Links the subject to the person; false when either key is taken already (by a link made first). */
export async function linkIdentity(db: Db, l: { principalId: string; issuer: string; subject: string; email: string | null }): Promise<boolean> {
  try {
    await db.externalIdentity.create({ data: { id: `xid_${randomUUID().replace(/-/g, '')}`, ...l, lastUsedAt: new Date() } });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'P2002') return false;
    throw err;
  }
}

export async function touchIdentity(db: Db, id: string): Promise<void> {
  await db.externalIdentity.updateMany({ where: { id }, data: { lastUsedAt: new Date() } });
}

/** Removes every link of a person (their account's erasure); how many there were. */
export async function unlinkAllOf(db: Db, principalId: string): Promise<number> {
  return (await db.externalIdentity.deleteMany({ where: { principalId } })).count;
}

/** Removes a link; whether there was one. */
export async function unlinkIdentity(db: Db, id: string, principalId: string): Promise<boolean> {
  return (await db.externalIdentity.deleteMany({ where: { id, principalId } })).count === 1;
}
