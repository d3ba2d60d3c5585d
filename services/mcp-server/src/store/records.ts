import type { SqlClient } from '@floe/http';

// What the tool server reads of its callers itself: only the organisation of
// a token record, for the audit log. Raw SQL over the process's pool: this
// deployable has no Prisma client, and this is its one query.

/** The organisation a token record belongs to (an mcp record has one membership); null when it has none any more. */
export async function orgOfRecord(db: SqlClient, recordId: string): Promise<string | null> {
  const { rows } = await db.query<{ org_id: string }>(`SELECT org_id FROM memberships WHERE principal_id = $1 ORDER BY created_at LIMIT 1`, [recordId]);
  return rows[0]?.org_id ?? null;
}
