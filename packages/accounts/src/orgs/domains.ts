import type { Request } from 'express';
import type { PrismaClient } from '@floe/db';
import { badRequest, conflict, notFound, writeAuditIn } from '@floe/http';
import type { AccessContext } from '../access/context';
import { deleteDomain, domainHolder, domainsOf, insertDomain, openDomainOrganization, verifiedAddressOf } from '../domain-records';
import { joinOnce, underOrganizationLock } from '../members';
import { orgAdminFor } from './orgs';

// Spec: POST/DELETE /v1/orgs/{org_id}/domains. The proof of a domain is the
// claiming admin's own verified address on it; public mail domains are never
// claimable; one domain belongs to one organisation. With domain join on,
// a person with a verified address on a claimed domain joins as a member at
// sign-up (an invitation wins when both apply). A claim, a removal and a
// join by domain commit with their audit events or not at all.

/** At most this many domains per organisation (Floe's choice; the spec names the refusal only). */
export const MAX_DOMAINS = 10;

/** Mail providers anyone can hold an address at: never a proof of belonging to one organisation. */
export const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'yahoo.com', 'ymail.com', 'icloud.com', 'me.com', 'mac.com',
  'aol.com', 'proton.me', 'protonmail.com', 'pm.me', 'gmx.com', 'gmx.net', 'gmx.de', 'web.de', 'mail.com', 'yandex.com', 'yandex.ru', 'mail.ru',
  'qq.com', '163.com', '126.com', 'zoho.com', 'fastmail.com', 'hey.com', 'tutanota.com', 'tuta.io', 'duck.com', 'example.com', 'example.org', 'example.net',
]);

const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

export async function claimDomain(d: { prisma: PrismaClient }, req: Request, ctx: AccessContext, orgIdOrHandle: string, asked: string) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'claiming a domain');
  const domain = asked.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(domain)) throw badRequest('invalid_value', `${asked} is not a domain name`, { field: 'domain' });
  if (PUBLIC_MAIL_DOMAINS.has(domain)) throw badRequest('public_mail_domain', `${domain} is a public mail provider; anyone can have an address there`, { field: 'domain' });
  const address = ctx.kind === 'human' ? await verifiedAddressOf(d.prisma, ctx.principalId) : null;
  if (!address || address.split('@')[1].toLowerCase() !== domain) {
    throw conflict('domain_not_verified', `the proof of ${domain} is your own verified address on it; yours is ${address ?? 'not verified'}`, {
      field: 'domain', remedy: 'claim as an admin whose verified address is on the domain',
    });
  }
  // One organisation's claims one at a time (its row's lock), so the count holds; the domain's key decides between organisations.
  const created = await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    const holder = await domainHolder(tx, domain);
    if (holder?.orgId === m.orgId) return false;
    if (holder) throw claimedElsewhere(domain);
    const current = (await domainsOf(tx, m.orgId)).length;
    if (current >= MAX_DOMAINS) throw badRequest('too_many_claims', `an organisation claims at most ${MAX_DOMAINS} domains`, { limit_value: MAX_DOMAINS, current });
    if (!(await insertDomain(tx, { domain, orgId: m.orgId, claimedBy: ctx.principalId }))) throw claimedElsewhere(domain);
    await writeAuditIn(tx, req, { action: 'org.domain_claim', orgId: m.orgId, targetType: 'domain', targetId: domain, data: { proof: 'verified_address' } });
    return true;
  });
  return { domain: (await domainHolder(d.prisma, domain))!, created, orgId: m.orgId };
}

const claimedElsewhere = (domain: string) => conflict('domain_claimed', `${domain} belongs to another organisation`, { field: 'domain' });

export async function releaseDomain(d: { prisma: PrismaClient }, req: Request, ctx: AccessContext, orgIdOrHandle: string, asked: string) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'removing a domain');
  const domain = asked.trim().toLowerCase();
  // Under the organisation's lock, as claims are: the last domain's removal and domain join switching off are one change.
  const r = await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    const removed = await deleteDomain(tx, m.orgId, domain);
    if (!removed.removed) throw notFound('domain_not_found', `${m.handle} has not claimed ${domain}`);
    await writeAuditIn(tx, req, { action: 'org.update', orgId: m.orgId, targetType: 'domain', targetId: domain, data: { changes: { domain_removed: domain, domain_join: removed.domainJoin } } });
    return removed;
  });
  return { orgId: m.orgId, domain, domainJoin: r.domainJoin };
}


/** Sign-up's side: a verified address on an open claimed domain joins that organisation as a member; the organisation, or null. */
export async function joinByDomain(d: { prisma: PrismaClient }, req: Request, p: { principalId: string; email: string }): Promise<string | null> {
  return d.prisma.$transaction(async (tx) => {
    const orgId = await openDomainOrganization(tx, p.email.split('@')[1].toLowerCase());
    if (!orgId) return null;
    // Joined and audited in one transaction; a person who is a member already is not audited again.
    if (await joinOnce(tx, { orgId, principalId: p.principalId, role: 'member', joinedVia: 'domain', createdBy: null })) {
      await writeAuditIn(tx, req, { action: 'org.member_join', orgId, targetType: 'principal', targetId: p.principalId, data: { role: 'member', via: 'domain' } });
    }
    return orgId;
  });
}
