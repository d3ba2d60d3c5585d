import type { Db } from '@floe/db';

// The person's organisation as identity reads it for a session's answer (the
// control plane writes memberships and organisations).

export interface SessionOrganization {
  org_id: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  joined_via: string;
}

/** The person's first active organisation, with their role in it. */
export async function firstOrganizationOf(db: Db, principalId: string): Promise<SessionOrganization | null> {
  // Raw: joins organisations (no relation declared).
  const rows = await db.$queryRaw<SessionOrganization[]>`
    SELECT o.id AS org_id, o.name, o.handle, m.role, m.joined_via
      FROM memberships m JOIN organizations o ON o.id = m.org_id
     WHERE m.principal_id = ${principalId} AND o.status = 'active' ORDER BY m.created_at, m.org_id LIMIT 1`;
  return rows[0] ?? null;
}

/** Every active organisation of the person, oldest membership first. */
export async function organizationsOf(db: Db, principalId: string): Promise<SessionOrganization[]> {
  // Raw: joins organisations (no relation declared).
  return db.$queryRaw<SessionOrganization[]>`
    SELECT o.id AS org_id, o.name, o.handle, m.role, m.joined_via
      FROM memberships m JOIN organizations o ON o.id = m.org_id
     WHERE m.principal_id = ${principalId} AND o.status = 'active' ORDER BY m.created_at, m.org_id`;
}
