// Where a person signing up lands when an organisation already wants them:
// a pending invitation to their address, or a claimed open domain (the
// invitation wins when both apply). Organisations have neither yet (a later
// issue adds invitations and domains and fills this in); until then every
// sign-up makes its own organisation.

export interface Join {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  via: 'invitation' | 'domain';
}

export async function joinFor(_email: string): Promise<Join | null> {
  return null;
}
