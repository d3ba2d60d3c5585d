import { randomUUID } from 'node:crypto';
import type { SqlClient } from '@floe/http';

export type PrincipalKind = 'human' | 'agent' | 'mcp' | 'operator';

export interface PrincipalRow {
  principal_id: string;
  kind: PrincipalKind;
  email: string | null;
  display_name: string | null;
  status: 'active' | 'suspended' | 'deleted';
  created_at: string;
  suspended_at: string | null;
}

/** Principal ids are `p_` + 32 hex: the spec's bucket names take 8 hex of them. */
export function newPrincipalId(): string {
  return `p_${randomUUID().replace(/-/g, '')}`;
}

const COLUMNS = `id AS principal_id, kind, email, display_name, status, created_at, suspended_at`;

export async function insertPrincipal(
  db: SqlClient,
  p: { kind: PrincipalKind; email: string | null; displayName: string | null },
): Promise<PrincipalRow> {
  const { rows } = await db.query<PrincipalRow>(
    `INSERT INTO principals (id, kind, email, display_name) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
    [newPrincipalId(), p.kind, p.email, p.displayName],
  );
  return rows[0];
}

/** Suspends an active principal; null when there is no such principal. Suspending twice changes nothing. */
export async function suspendPrincipal(db: SqlClient, principalId: string): Promise<PrincipalRow | null> {
  const { rows } = await db.query<PrincipalRow>(
    `UPDATE principals SET status = 'suspended', suspended_at = COALESCE(suspended_at, now())
      WHERE id = $1 AND status <> 'deleted' RETURNING ${COLUMNS}`,
    [principalId],
  );
  if (rows[0]) return rows[0];
  const existing = await db.query<PrincipalRow>(`SELECT ${COLUMNS} FROM principals WHERE id = $1`, [principalId]);
  return existing.rows[0] ?? null;
}
