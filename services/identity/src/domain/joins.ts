import type { Db } from '@floe/db';
import { openDomainOrganizationOf, pendingInvitationTo } from '../store/invitations';

// Where a person signing up lands when an organisation already wants them: a
// pending invitation to their address places them in the inviting
// organisation with the invited role (the control plane spends it when the
// account is made); otherwise an address on a claimed domain of an
// organisation with domain join on joins it as a member. A joiner provisions
// nothing of their own.

export interface Join {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  via: 'invitation' | 'domain';
}

export async function joinFor(db: Db, email: string): Promise<Join | null> {
  const invitation = await pendingInvitationTo(db, email);
  if (invitation) return { ...invitation, via: 'invitation' };
  const open = await openDomainOrganizationOf(db, email);
  return open ? { ...open, role: 'member', via: 'domain' } : null;
}
