import type { SqlClient } from '@floe/http';
import { accessOf, type Access, type Level } from '../access/levels';
import type { WarehouseRecord } from '../store/warehouses';

// The grant rows of a warehouse as the spec lists them: every principal of
// its organisation with the level it holds and why, implicit grants included.

export interface OrgPrincipal {
  principalId: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator';
  display: string | null;
  role: 'admin' | 'member';
  confined: boolean;
  joinedAt: Date;
  grant: { level: Level; grantedBy: string | null; grantedAt: Date } | null;
}

export async function orgPrincipals(db: SqlClient, w: WarehouseRecord, principalId?: string): Promise<OrgPrincipal[]> {
  if (!w.orgId) {
    const { rows } = await db.query(
      `SELECT id, kind, COALESCE(email, display_name) AS display, created_at FROM principals WHERE id = $1`, [w.projectOwner]);
    return rows.map((r) => ({ principalId: r.id, kind: r.kind, display: r.display, role: 'admin', confined: true, joinedAt: r.created_at, grant: null }));
  }
  const { rows } = await db.query(
    `SELECT m.principal_id, m.role, m.confined, m.created_at AS joined_at, p.kind, COALESCE(p.email, p.display_name) AS display,
            g.level, g.granted_by, g.granted_at
       FROM memberships m JOIN principals p ON p.id = m.principal_id
       LEFT JOIN warehouse_grants g ON g.warehouse_id = $2 AND g.principal_id = m.principal_id
      WHERE m.org_id = $1 AND p.status <> 'deleted' ${principalId ? 'AND m.principal_id = $3' : ''}
      ORDER BY m.created_at, m.principal_id`,
    principalId ? [w.orgId, w.id, principalId] : [w.orgId, w.id],
  );
  return rows.map((r) => ({
    principalId: r.principal_id, kind: r.kind, display: r.display, role: r.role, confined: r.confined, joinedAt: r.joined_at,
    grant: r.level ? { level: r.level, grantedBy: r.granted_by, grantedAt: r.granted_at } : null,
  }));
}

export function accessOfPrincipal(p: OrgPrincipal, w: WarehouseRecord): Access {
  return accessOf({
    principalId: p.principalId,
    kind: p.kind,
    membership: w.orgId ? { role: p.role, confined: p.confined } : null,
    ownsProject: !w.orgId && w.projectOwner === p.principalId,
    createdBy: w.createdBy,
    grant: p.grant ? { level: p.grant.level } : null,
  });
}

export function grantRow(p: OrgPrincipal, a: Access) {
  const explicit = a.via === 'grant' && p.grant;
  return {
    principal_id: p.principalId,
    kind: p.kind,
    display: p.display,
    level: a.level,
    via: a.via,
    granted_by: explicit ? p.grant!.grantedBy : null,
    granted_at: (explicit ? p.grant!.grantedAt : p.joinedAt)?.toISOString?.() ?? null,
  };
}
