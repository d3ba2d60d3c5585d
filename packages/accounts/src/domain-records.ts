import type { Db } from '@floe/db';

// Claimed mail domains of organisations.

export interface DomainRecord {
  domain: string;
  orgId: string;
  claimedBy: string;
  claimedAt: Date;
}

export function domainsOf(db: Db, orgId: string): Promise<DomainRecord[]> {
  return db.orgDomain.findMany({ where: { orgId }, orderBy: { claimedAt: 'asc' } });
}

export function domainHolder(db: Db, domain: string): Promise<DomainRecord | null> {
  return db.orgDomain.findUnique({ where: { domain } });
}

/** Claims the domain for the organisation; false when another organisation holds it already. */
export async function insertDomain(db: Db, d: { domain: string; orgId: string; claimedBy: string }): Promise<boolean> {
  const { count } = await db.orgDomain.createMany({ data: [d], skipDuplicates: true });
  return count === 1;
}

/** Removes the claim; when it was the organisation's last, domain join switches off. False when the organisation held no such domain. */
export async function deleteDomain(db: Db, orgId: string, domain: string): Promise<{ removed: boolean; domainJoin: boolean }> {
  const { count } = await db.orgDomain.deleteMany({ where: { orgId, domain } });
  const left = await db.orgDomain.count({ where: { orgId } });
  if (left === 0) await db.organization.updateMany({ where: { id: orgId }, data: { domainJoin: false } });
  const org = await db.organization.findUnique({ where: { id: orgId }, select: { domainJoin: true } });
  return { removed: count === 1, domainJoin: org?.domainJoin ?? false };
}

/** The active organisation with domain join on that holds this domain. */
export async function openDomainOrganization(db: Db, domain: string): Promise<string | null> {
  const d = await db.orgDomain.findUnique({ where: { domain }, select: { orgId: true } });
  if (!d) return null;
  const org = await db.organization.findFirst({ where: { id: d.orgId, status: 'active', domainJoin: true }, select: { id: true } });
  return org?.id ?? null;
}

/** Whether the principal's address was proven, and which it is. */
export async function verifiedAddressOf(db: Db, principalId: string): Promise<string | null> {
  const p = await db.principal.findUnique({ where: { id: principalId }, select: { email: true, emailVerifiedAt: true } });
  return p?.email && p.emailVerifiedAt ? p.email : null;
}
