import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import { conflict, forbidden, notFound, badRequest } from '@floe/http';
import type { Db, PrismaClient } from '@floe/db';
import type { AccessContext, OrgMembership } from '../access/context';
import { domainsOf } from '../domain-records';
import { membersOf, organizationById, otherHumanAdmins, removeMember, setRole, underOrganizationLock, updateOrganization, type MemberRecord } from '../members';

// Spec: Organisations and agents — the organisation and its members. Every
// route evaluates the caller's role in the organisation (a token's role
// exactly as a person's); an organisation always keeps one human admin
// (tokens never count), checked under the organisation's lock so two admins
// demoting each other at once leave one.

/** The caller's membership in the organisation named by id or handle; 404 `org_not_found` for one they are not in. */
export function membershipFor(ctx: AccessContext, orgIdOrHandle: string): OrgMembership {
  const m = ctx.memberships.find((x) => x.orgId === orgIdOrHandle || x.handle === orgIdOrHandle);
  if (!m) throw notFound('org_not_found', `no organisation ${JSON.stringify(orgIdOrHandle)} that you belong to`);
  return m;
}

function requireOrgAdmin(m: OrgMembership, what: string): void {
  if (m.role !== 'admin') throw forbidden('insufficient_role', `${what} is for an admin of ${m.handle}; you are a member`, { role: m.role, needed: 'admin' });
}

/** The caller's membership in the organisation, which must be an admin's: 404 `org_not_found` outside it, 403 `insufficient_role` for a member. */
export function orgAdminFor(ctx: AccessContext, orgIdOrHandle: string, what: string): OrgMembership {
  const m = membershipFor(ctx, orgIdOrHandle);
  requireOrgAdmin(m, what);
  return m;
}

/** `owner` is accepted as an alias of `admin` for one version and never returned. */
export const roleOf = (asked: 'admin' | 'member' | 'owner'): 'admin' | 'member' => (asked === 'owner' ? 'admin' : asked);

export async function updateOrg(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string, p: { name?: string; domainJoin?: boolean }) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'changing the organisation');
  if (p.name === undefined && p.domainJoin === undefined) throw badRequest('missing_field', 'send {"name"} and/or {"domain_join"}', { field: 'name' });
  const before = (await organizationById(prisma, m.orgId))!;
  // Domain join needs a claimed domain (proven by an admin's verified address on it).
  if (p.domainJoin === true && (await domainsOf(prisma, m.orgId)).length === 0) {
    throw badRequest('no_verified_domain', 'domain join needs a claimed domain first (POST /v1/orgs/{org_id}/domains)', { field: 'domain_join' });
  }
  await updateOrganization(prisma, m.orgId, p);
  const after = (await organizationById(prisma, m.orgId))!;
  const changes: Record<string, unknown> = {};
  const previous: Record<string, unknown> = {};
  if (p.name !== undefined && p.name !== before.name) { changes.name = p.name; previous.name = before.name; }
  if (p.domainJoin !== undefined && p.domainJoin !== before.domainJoin) { changes.domain_join = p.domainJoin; previous.domain_join = before.domainJoin; }
  return { org: after, role: m.role, changes, previous };
}

export async function listMembers(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string): Promise<{ orgId: string; members: MemberRecord[] }> {
  const m = membershipFor(ctx, orgIdOrHandle);
  return { orgId: m.orgId, members: await membersOf(prisma, m.orgId) };
}

async function memberOrNotFound(prisma: PrismaClient, orgId: string, memberId: string): Promise<MemberRecord> {
  const [member] = await membersOf(prisma, orgId, memberId);
  if (!member) throw notFound('member_not_found', `no member ${memberId} in this organisation`);
  return member;
}

/** The caller's role read again under the organisation's lock: a demotion that committed meanwhile counts. */
async function stillAdmin(tx: Db, m: OrgMembership, principalId: string, what: string): Promise<void> {
  const [me] = await membersOf(tx, m.orgId, principalId);
  if (me?.role !== 'admin') requireOrgAdmin({ ...m, role: me?.role ?? 'member' }, what);
}

const lastAdmin = (handle: string) => conflict('last_admin', `${handle} must keep at least one admin who is a person; make another member an admin first`, {
  remedy: 'PATCH /v1/orgs/{org_id}/members/{member_id} with {"role": "admin"}',
});

/** PATCH …/members/{id}: an admin sets a member's role; demoting the last human admin is 409 `last_admin`. */
export async function changeRole(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string, memberId: string, role: 'admin' | 'member') {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'changing a member\'s role');
  const target = await memberOrNotFound(prisma, m.orgId, memberId);
  await underOrganizationLock(prisma, m.orgId, async (tx) => {
    await stillAdmin(tx, m, ctx.principalId, 'changing a member\'s role');
    const [now] = await membersOf(tx, m.orgId, memberId);
    if (!now) throw notFound('member_not_found', `no member ${memberId} in this organisation`);
    if (now.role === 'admin' && role === 'member' && now.kind === 'human' && (await otherHumanAdmins(tx, m.orgId, memberId)) === 0) throw lastAdmin(m.handle);
    await setRole(tx, m.orgId, memberId, role);
  });
  return { orgId: m.orgId, member: { ...target, role }, previous: target.role };
}

export interface RemoveDeps {
  prisma: PrismaClient;
  redis: Redis;
  redisPrefix: string;
}

/**
 * DELETE …/members/{id}: an admin removes a member, or a person leaves; the
 * last human admin stays (409 `last_admin`). The credential epoch is bumped
 * after, so the tool hosts the person allowed (OAuth tokens stand only while
 * their person is a member) stop at their next request.
 */
export async function removeFromOrg(d: RemoveDeps, ctx: AccessContext, orgIdOrHandle: string, memberId: string) {
  const { prisma } = d;
  const m = membershipFor(ctx, orgIdOrHandle);
  const leaving = memberId === ctx.principalId;
  if (!leaving) requireOrgAdmin(m, 'removing a member');
  const target = await memberOrNotFound(prisma, m.orgId, memberId);
  const grants = await underOrganizationLock(prisma, m.orgId, async (tx) => {
    if (!leaving) await stillAdmin(tx, m, ctx.principalId, 'removing a member');
    const [now] = await membersOf(tx, m.orgId, memberId);
    if (!now) throw notFound('member_not_found', `no member ${memberId} in this organisation`);
    if (now.role === 'admin' && now.kind === 'human' && (await otherHumanAdmins(tx, m.orgId, memberId)) === 0) throw lastAdmin(m.handle);
    return removeMember(tx, m.orgId, memberId);
  });
  await bumpCredentialEpoch(d.redis, d.redisPrefix);
  return { orgId: m.orgId, member: target, leaving, grantsRemoved: grants };
}
