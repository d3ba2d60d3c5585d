import { membershipsOf } from '@floe/accounts';
import type { Db } from '@floe/db';

// The person's organisations in the shape identity answers with (a session,
// a consent page), read through the accounts aggregate's membershipsOf.

export interface SessionOrganization {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  joined_via: string;
}

/** Every active organisation of the person, oldest membership first. */
export async function organizationsOf(db: Db, principalId: string): Promise<SessionOrganization[]> {
  return (await membershipsOf(db, principalId)).map((m) => ({ org_id: m.orgId, name: m.name, handle: m.handle, role: m.role, joined_via: m.joinedVia }));
}

/** The person's first active organisation, with their role in it. */
export async function firstOrganizationOf(db: Db, principalId: string): Promise<SessionOrganization | null> {
  return (await organizationsOf(db, principalId))[0] ?? null;
}
