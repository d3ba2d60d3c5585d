import type { Db } from '@floe/db';

// Invitations as sign-up reads them (the control plane writes and spends them).

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
