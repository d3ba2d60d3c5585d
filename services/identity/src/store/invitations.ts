import type { Db } from '@floe/db';

// Invitations and open claimed domains as sign-up reads them (packages/accounts
// writes them, and spends an invitation when the account is made).

export interface PendingInvitation {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
}

/** The newest pending, unexpired invitation to an address into an active organisation. */
export async function pendingInvitationTo(db: Db, email: string): Promise<PendingInvitation | null> {
  const i = await db.invitation.findFirst({
    relationLoadStrategy: 'join',
    where: { email, acceptedAt: null, expiresAt: { gt: new Date() }, organization: { status: 'active' } },
    orderBy: { createdAt: 'desc' },
    select: { orgId: true, role: true, organization: { select: { name: true, handle: true } } },
  });
  return i ? { org_id: i.orgId, name: i.organization.name, handle: i.organization.handle, role: i.role as PendingInvitation['role'] } : null;
}

/** The active organisation with domain join on that claimed this address's domain. */
export async function openDomainOrganizationOf(db: Db, email: string): Promise<{ org_id: string; name: string; handle: string } | null> {
  const domain = email.split('@')[1]?.toLowerCase() ?? '';
  const d = await db.orgDomain.findFirst({
    relationLoadStrategy: 'join',
    where: { domain, organization: { status: 'active', domainJoin: true } },
    select: { organization: { select: { id: true, name: true, handle: true } } },
  });
  return d ? { org_id: d.organization.id, name: d.organization.name, handle: d.organization.handle } : null;
}
