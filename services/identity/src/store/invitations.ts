import type { Db } from '@floe/db';

// Invitations and open claimed domains as sign-up reads them (the control
// plane writes them, and spends an invitation when the account is made).

export interface PendingInvitation {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
}

/** The newest pending, unexpired invitation to an address into an active organisation. */
export async function pendingInvitationTo(db: Db, email: string): Promise<PendingInvitation | null> {
  // Raw: joins organisations (no relation declared).
  const rows = await db.$queryRaw<PendingInvitation[]>`
    SELECT i.org_id, o.name, o.handle, i.role FROM invitations i JOIN organizations o ON o.id = i.org_id
     WHERE i.email = ${email} AND i.accepted_at IS NULL AND i.expires_at > now() AND o.status = 'active'
     ORDER BY i.created_at DESC LIMIT 1`;
  return rows[0] ?? null;
}

/** The active organisation with domain join on that claimed this address's domain. */
export async function openDomainOrganizationOf(db: Db, email: string): Promise<{ org_id: string; name: string; handle: string } | null> {
  const domain = email.split('@')[1]?.toLowerCase() ?? '';
  // Raw: joins organisations (no relation declared).
  const rows = await db.$queryRaw<Array<{ org_id: string; name: string; handle: string }>>`
    SELECT o.id AS org_id, o.name, o.handle FROM org_domains d JOIN organizations o ON o.id = d.org_id
     WHERE d.domain = ${domain} AND o.status = 'active' AND o.domain_join`;
  return rows[0] ?? null;
}
