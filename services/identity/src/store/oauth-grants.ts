import type { Db, PrismaClient } from '@floe/db';
import { retireRefreshHash } from './retired-refresh';

// The token record a person's consent gave an OAuth client (person + client →
// agent), and the authorization codes allowed consents mint (only a SHA-256
// of each code is kept).

export interface OAuthBindingRecord { personId: string; clientId: string; agentId: string; orgId: string }

export async function bindingOf(db: Db, personId: string, clientId: string): Promise<OAuthBindingRecord | null> {
  return db.oAuthBinding.findUnique({ where: { personId_clientId: { personId, clientId } }, select: { personId: true, clientId: true, agentId: true, orgId: true } });
}

export async function bind(db: Db, b: OAuthBindingRecord): Promise<void> {
  const now = new Date();
  await db.oAuthBinding.upsert({
    where: { personId_clientId: { personId: b.personId, clientId: b.clientId } },
    create: { ...b, createdAt: now, updatedAt: now },
    update: { agentId: b.agentId, orgId: b.orgId, updatedAt: now },
  });
}

export interface NewOAuthCode {
  codeHash: string;
  requestId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  agentId: string;
  personId: string;
  orgId: string;
  expiresAt: Date;
}

export async function insertOAuthCode(db: Db, c: NewOAuthCode): Promise<void> {
  await db.oAuthCode.create({ data: c });
}

/** A stored code as the exchange reads it: what was minted (less the request it answered) and whether it was spent. */
export interface OAuthCodeRecord extends Omit<NewOAuthCode, 'requestId'> {
  usedAt: Date | null;
}

export async function oauthCodeByHash(db: Db, codeHash: string): Promise<OAuthCodeRecord | null> {
  return db.oAuthCode.findUnique({
    where: { codeHash },
    select: { codeHash: true, clientId: true, redirectUri: true, codeChallenge: true, resource: true, scope: true, agentId: true, personId: true, orgId: true, expiresAt: true, usedAt: true },
  });
}

export interface NewOAuthFamily {
  id: string;
  code: OAuthCodeRecord;
  refreshHash: string;
  expiresAt: Date;
}

/**
 * Spends the code and opens its refresh family in one transaction: a rival
 * use that loses the spend (it waits on the code's row) then finds the family
 * to revoke. False: the code was spent already.
 */
export async function spendCodeIntoFamily(db: PrismaClient, f: NewOAuthFamily): Promise<boolean> {
  return db.$transaction(async (tx) => {
    const spent = await tx.oAuthCode.updateMany({ where: { codeHash: f.code.codeHash, usedAt: null }, data: { usedAt: new Date() } });
    if (spent.count !== 1) return false;
    const c = f.code;
    await tx.oAuthGrant.create({
      data: {
        id: f.id, codeHash: c.codeHash, clientId: c.clientId, agentId: c.agentId, personId: c.personId, orgId: c.orgId, resource: c.resource, scope: c.scope,
        refreshHash: f.refreshHash, expiresAt: f.expiresAt,
      },
    });
    return true;
  });
}

export interface OAuthFamilyRecord {
  id: string;
  clientId: string;
  agentId: string;
  personId: string;
  orgId: string;
  resource: string;
  scope: string;
  refreshHash: string;
  previousRefreshHash: string | null;
  rotatedAt: Date | null;
  expiresAt: Date;
  revokedAt: Date | null;
}

export async function oauthFamilyById(db: Db, id: string): Promise<OAuthFamilyRecord | null> {
  return db.oAuthGrant.findUnique({
    where: { id },
    select: {
      id: true, clientId: true, agentId: true, personId: true, orgId: true, resource: true, scope: true,
      refreshHash: true, previousRefreshHash: true, rotatedAt: true, expiresAt: true, revokedAt: true,
    },
  });
}

/**
 * Swaps the family's refresh token if `currentHash` is still the current one
 * (one winner among racing refreshes) and retires `currentHash` in the same
 * transaction; the expiry slides.
 */
export async function rotateFamilyRefresh(db: PrismaClient, id: string, currentHash: string, nextHash: string, expiresAt: Date): Promise<boolean> {
  const now = new Date();
  return db.$transaction(async (tx) => {
    const { count } = await tx.oAuthGrant.updateMany({
      where: { id, refreshHash: currentHash, revokedAt: null, expiresAt: { gt: now } },
      data: { refreshHash: nextHash, previousRefreshHash: currentHash, rotatedAt: now, lastUsedAt: now, expiresAt },
    });
    if (count !== 1) return false;
    await retireRefreshHash(tx, currentHash, { familyId: id });
    return true;
  });
}

export interface RevokedFamily { id: string; clientId: string; agentId: string; personId: string; orgId: string }

/** Revokes families (by id, or every family a code made); answers those that were live (one caller each, however many race). */
export async function revokeOAuthFamilies(db: Db, where: { id: string } | { codeHash: string }, reason: string): Promise<RevokedFamily[]> {
  return db.oAuthGrant.updateManyAndReturn({
    where: { ...where, revokedAt: null },
    data: { revokedAt: new Date(), revokeReason: reason },
    select: { id: true, clientId: true, agentId: true, personId: true, orgId: true },
  });
}

/** Whether the token record is still active (a revoked record is suspended). */
export async function recordIsActive(db: Db, agentId: string): Promise<boolean> {
  const p = await db.principal.findUnique({ where: { id: agentId }, select: { status: true } });
  return p?.status === 'active';
}
