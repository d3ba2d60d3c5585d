import type { Db } from '@floe/db';
import { pendingInvitationTo } from '../store/invitations';

// Where a person signing up lands when an organisation already wants them: a
// pending invitation to their address places them in the inviting
// organisation with the invited role (the control plane spends it when the
// account is made), and they provision nothing of their own. Claimed open
// domains join a person as member too once organisations can claim domains;
// the invitation will win when both apply.

export interface Join {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  via: 'invitation' | 'domain';
}

export async function joinFor(db: Db, email: string): Promise<Join | null> {
  const invitation = await pendingInvitationTo(db, email);
  return invitation ? { ...invitation, via: 'invitation' } : null;
}
