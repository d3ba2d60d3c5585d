import { HttpError, type ErrorExtras, type SqlClient } from '@floe/http';
import { atLeast, type Level } from './levels';
import type { VisibleWarehouse } from '../store/warehouses';

export interface Granter {
  principal_id: string;
  kind: string;
  display: string | null;
  role: 'admin';
}

/** Who could raise a caller's level on a warehouse: the admins of its organisation (people first). */
export async function grantersOf(db: SqlClient, w: { orgId: string | null; projectOwner: string }): Promise<Granter[]> {
  if (!w.orgId) {
    const { rows } = await db.query<{ id: string; kind: string; display: string | null }>(
      `SELECT id, kind, COALESCE(email, display_name) AS display FROM principals WHERE id = $1`, [w.projectOwner]);
    return rows.map((r) => ({ principal_id: r.id, kind: r.kind, display: r.display, role: 'admin' }));
  }
  const { rows } = await db.query<{ id: string; kind: string; display: string | null }>(
    `SELECT p.id, p.kind, COALESCE(p.email, p.display_name) AS display
       FROM memberships m JOIN principals p ON p.id = m.principal_id
      WHERE m.org_id = $1 AND m.role = 'admin' AND p.status = 'active'
      ORDER BY (p.kind = 'human') DESC, m.created_at LIMIT 20`,
    [w.orgId],
  );
  return rows.map((r) => ({ principal_id: r.id, kind: r.kind, display: r.display, role: 'admin' }));
}

/** 403 `forbidden` with `can_grant`, who can grant on this warehouse (error rule 1), after any other extras. */
export async function forbiddenNamingGranters(db: SqlClient, w: VisibleWarehouse, message: string, extras: ErrorExtras = {}): Promise<HttpError> {
  return new HttpError(403, 'forbidden', message, { ...extras, can_grant: await grantersOf(db, w) });
}

/** Error rule 1: a holder below the needed level gets 403 `forbidden` naming who can grant it. */
export async function requireLevel(db: SqlClient, w: VisibleWarehouse, needed: Level, what: string): Promise<void> {
  if (atLeast(w.access.level, needed)) return;
  throw await forbiddenNamingGranters(db, w, `${what} needs ${needed} level on warehouse ${w.name}; you hold ${w.access.level}`, {
    level: w.access.level,
    needed,
  });
}
