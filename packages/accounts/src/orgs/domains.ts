import type { Request } from 'express';
import type { PrismaClient } from '@floe/db';
import { badRequest, conflict, HttpError, notFound, writeAuditIn } from '@floe/http';
import type { AccessContext, OrgMembership } from '../access/context';
import { deleteDomain, domainHolder, domainsOf, insertDomain, openDomainOrganization, verifiedAddressOf, type DomainRecord } from '../domain-records';
import { joinOnce, underOrganizationLock } from '../members';
import { challengeTokenFor } from './domain-challenges';
import { challengeRecord, legacyChallengeToken, type DnsChallenge, type TxtLookup } from './domain-dns';
import { orgAdminFor } from './orgs';

// Spec: POST/DELETE /v1/orgs/{org_id}/domains and POST …/domains/{domain}/verify.
// A domain is proven by the claiming admin's own verified address on it, or
// by a TXT record the organisation publishes (domain-dns.ts says which; the
// claim's refusal names it); public mail domains are never claimable; one
// domain belongs to one organisation. With domain join on, a person with a
// verified address on a claimed domain joins as a member at sign-up (an
// invitation wins when both apply). A claim, a removal and a join by domain
// commit with their audit events or not at all.

/** At most this many domains per organisation (Floe's choice; the spec names the refusal only). */
export const MAX_DOMAINS = 10;

/** Mail providers anyone can hold an address at: never a proof of belonging to one organisation. */
export const PUBLIC_MAIL_DOMAINS = new Set([
  'gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.com', 'live.com', 'msn.com', 'yahoo.com', 'ymail.com', 'icloud.com', 'me.com', 'mac.com',
  'aol.com', 'proton.me', 'protonmail.com', 'pm.me', 'gmx.com', 'gmx.net', 'gmx.de', 'web.de', 'mail.com', 'yandex.com', 'yandex.ru', 'mail.ru',
  'qq.com', '163.com', '126.com', 'zoho.com', 'fastmail.com', 'hey.com', 'tutanota.com', 'tuta.io', 'duck.com', 'example.com', 'example.org', 'example.net',
]);

const DOMAIN = /^(?=.{4,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** How the claim was proven: the audit event's and the answer's `proof`. */
export type DomainProof = 'verified_address' | 'dns_txt';

/** The domain as it is stored (lower case, no trailing dot); 400 for a malformed name or a public mail provider. */
function claimableDomain(asked: string): string {
  const domain = asked.trim().toLowerCase().replace(/\.$/, '');
  if (!DOMAIN.test(domain)) throw badRequest('invalid_value', `${asked} is not a domain name`, { field: 'domain' });
  if (PUBLIC_MAIL_DOMAINS.has(domain)) throw badRequest('public_mail_domain', `${domain} is a public mail provider; anyone can have an address there`, { field: 'domain' });
  return domain;
}

/**
 * The DNS proof's deps: the key of the tokens handed out before tokens were stored (domain-dns.ts; null without a
 * bootstrap secret: only stored tokens prove a domain).
 */
export interface DomainProofDeps { prisma: PrismaClient; legacyDomainProofKey: Buffer | null }

export async function claimDomain(d: DomainProofDeps, req: Request, ctx: AccessContext, orgIdOrHandle: string, asked: string) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'claiming a domain');
  const domain = claimableDomain(asked);
  const address = ctx.kind === 'human' ? await verifiedAddressOf(d.prisma, ctx.principalId) : null;
  if (!address || address.split('@')[1].toLowerCase() !== domain) {
    // The refusal says how to prove it by DNS instead: the record to publish (its token made now if need be) and the route that checks it.
    const record = challengeRecord(domain, await challengeTokenFor(d.prisma, m.orgId, domain));
    throw conflict('domain_not_verified', `the proof of ${domain} is your own verified address on it (yours is ${address ?? 'not verified'}), or a DNS TXT record`, {
      field: 'domain',
      remedy: `publish the TXT record in dns_record, then POST ${verifyPath(m.orgId, domain)}; or claim as an admin whose verified address is on the domain`,
      dns_record: record, verify: `POST ${verifyPath(m.orgId, domain)}`,
    });
  }
  return { ...(await recordClaim(d.prisma, req, ctx, m, domain, 'verified_address')), orgId: m.orgId };
}

const verifyPath = (orgId: string, domain: string) => `/v1/orgs/${orgId}/domains/${domain}/verify`;

/** Retry a DNS lookup after this long when the resolvers did not answer (Floe's number). */
export const DNS_RETRY_SECONDS = 30;

/**
 * POST …/domains/{domain}/verify: an admin proves the domain by the TXT record of its organisation's token (made
 * now when it has none, so the refusal names the record to publish) and it is claimed as a claim by address is (the
 * same lock, limit, uniqueness and audit, `proof: dns_txt`); the lookup comes before the claim, so a caller without
 * the record learns nothing of who else holds the domain. A record handed out before tokens were stored proves it too.
 */
export async function verifyDomainByDns(d: DomainProofDeps & { lookupTxt: TxtLookup }, req: Request, ctx: AccessContext, orgIdOrHandle: string, asked: string) {
  // authorize, validate
  const m = orgAdminFor(ctx, orgIdOrHandle, 'verifying a domain');
  const domain = claimableDomain(asked);
  const record = challengeRecord(domain, await challengeTokenFor(d.prisma, m.orgId, domain));
  const proving: DnsChallenge[] = [record, ...(d.legacyDomainProofKey ? [challengeRecord(domain, legacyChallengeToken(d.legacyDomainProofKey, m.orgId, domain))] : [])];
  // look up
  const answer = await d.lookupTxt(record.name);
  if (answer.kind === 'unavailable') {
    throw new HttpError(503, 'dns_unavailable', `the DNS lookup of ${record.name} did not complete (${answer.reason}); retry later`,
      { retry_after_seconds: DNS_RETRY_SECONDS, dns_record: record }, { 'Retry-After': String(DNS_RETRY_SECONDS) });
  }
  const found = answer.kind === 'records' ? answer.values : [];
  const proof = proving.find((r) => found.includes(r.value));
  if (!proof) {
    throw conflict('domain_not_verified', found.length
      ? `${record.name} has no TXT record with the expected value`
      : `${record.name} has no TXT record`, {
      field: 'domain', dns_record: record, found: found.slice(0, 5),
      remedy: 'publish the TXT record in dns_record (it may take a while to be visible), then verify again',
    });
  }
  // claim
  return { ...(await recordClaim(d.prisma, req, ctx, m, domain, 'dns_txt')), orgId: m.orgId, record: proof };
}

/** Claims a proven domain for the caller's organisation; `created` false when it held the domain already. */
async function recordClaim(prisma: PrismaClient, req: Request, ctx: AccessContext, m: OrgMembership, domain: string, proof: DomainProof): Promise<{ domain: DomainRecord; created: boolean }> {
  // One organisation's claims one at a time (its row's lock), so the count holds; the domain's key decides between organisations.
  return underOrganizationLock(prisma, m.orgId, async (tx) => {
    const holder = await domainHolder(tx, domain);
    if (holder?.orgId === m.orgId) return { domain: holder, created: false };
    if (holder) throw claimedElsewhere(domain);
    const current = (await domainsOf(tx, m.orgId)).length;
    if (current >= MAX_DOMAINS) throw badRequest('too_many_claims', `an organisation claims at most ${MAX_DOMAINS} domains`, { limit_value: MAX_DOMAINS, current });
    if (!(await insertDomain(tx, { domain, orgId: m.orgId, claimedBy: ctx.principalId }))) throw claimedElsewhere(domain);
    await writeAuditIn(tx, req, { action: 'org.domain_claim', orgId: m.orgId, targetType: 'domain', targetId: domain, data: { proof } });
    return { domain: (await domainHolder(tx, domain))!, created: true };
  });
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
