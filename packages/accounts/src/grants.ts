import { Prisma, type Db } from '@floe/db';
import type { Level } from './levels';

// Explicit grants on warehouses, and the principals of a warehouse's
// organisation with the grant each holds there.

export interface OrgPrincipal {
  principalId: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator';
  display: string | null;
  role: 'admin' | 'member';
  confined: boolean;
  /** A suspended principal (a revoked agent) is listed but takes no new grant. */
  active: boolean;
  joinedAt: Date;
  grant: { level: Level; grantedBy: string | null; grantedAt: Date } | null;
}

/** The principals of the warehouse's organisation (or, outside any, its project's owner), oldest membership first; or only `principalId`. */
export async function orgPrincipals(db: Db, w: { id: string; orgId: string | null; projectOwner: string }, principalId?: string): Promise<OrgPrincipal[]> {
  if (!w.orgId) {
    const p = await db.principal.findUnique({ where: { id: w.projectOwner }, select: { id: true, kind: true, email: true, displayName: true, createdAt: true, status: true } });
    return p ? [{ principalId: p.id, kind: p.kind, display: p.email ?? p.displayName, role: 'admin', confined: true, active: p.status === 'active', joinedAt: p.createdAt, grant: null }] : [];
  }
  // Raw: joins principals and the warehouse's grants to memberships (no relations declared).
  const rows = await db.$queryRaw<Array<{
    principal_id: string; role: 'admin' | 'member'; confined: boolean; joined_at: Date; active: boolean; kind: OrgPrincipal['kind']; display: string | null;
    level: Level | null; granted_by: string | null; granted_at: Date | null;
  }>>`
    SELECT m.principal_id, m.role, m.confined, m.created_at AS joined_at, p.status = 'active' AS active, p.kind::text AS kind, COALESCE(p.email, p.display_name) AS display,
           g.level, g.granted_by, g.granted_at
      FROM memberships m JOIN principals p ON p.id = m.principal_id
      LEFT JOIN warehouse_grants g ON g.warehouse_id = ${w.id} AND g.principal_id = m.principal_id
     WHERE m.org_id = ${w.orgId} AND p.status <> 'deleted' ${principalId ? Prisma.sql`AND m.principal_id = ${principalId}` : Prisma.empty}
     ORDER BY m.created_at, m.principal_id`;
  return rows.map((r) => ({
    principalId: r.principal_id, kind: r.kind, display: r.display, role: r.role, confined: r.confined, active: r.active, joinedAt: r.joined_at,
    grant: r.level ? { level: r.level, grantedBy: r.granted_by, grantedAt: r.granted_at! } : null,
  }));
}

/** Sets a principal's explicit level on a warehouse (`none` records a revoked implicit read). */
export async function upsertGrant(db: Db, g: { warehouseId: string; principalId: string; level: Level; grantedBy: string }): Promise<void> {
  await db.warehouseGrant.upsert({
    where: { warehouseId_principalId: { warehouseId: g.warehouseId, principalId: g.principalId } },
    create: g,
    update: { level: g.level, grantedBy: g.grantedBy, grantedAt: new Date() },
  });
}

export async function deleteGrant(db: Db, warehouseId: string, principalId: string): Promise<void> {
  await db.warehouseGrant.deleteMany({ where: { warehouseId, principalId } });
}

/** Every explicit grant a principal holds, by warehouse (a revoked membership read is `none`). */
export async function grantLevelsOf(db: Db, principalId: string): Promise<Map<string, Level>> {
  const rows = await db.warehouseGrant.findMany({ where: { principalId }, select: { warehouseId: true, level: true } });
  return new Map(rows.map((r) => [r.warehouseId, r.level as Level]));
}

// A catalog's grants while it is deleted: held out of force (so a restore can
// give them back), then given back or dropped.

/** Moves the catalog's grants out of force into the holding table, in the deletion's transaction; how many. */
export async function holdGrantsOf(tx: Prisma.TransactionClient, warehouseId: string): Promise<number> {
  // Raw: one INSERT … SELECT moves every row (Prisma has no such statement).
  await tx.$executeRaw`
    INSERT INTO held_warehouse_grants (warehouse_id, principal_id, level, granted_by, granted_at)
    SELECT warehouse_id, principal_id, level, granted_by, granted_at FROM warehouse_grants WHERE warehouse_id = ${warehouseId}
    ON CONFLICT (warehouse_id, principal_id) DO UPDATE SET level = EXCLUDED.level, granted_by = EXCLUDED.granted_by, granted_at = EXCLUDED.granted_at, held_at = now()`;
  const { count } = await tx.warehouseGrant.deleteMany({ where: { warehouseId } });
  return count;
}

/** The held grants back in force (for principals still in the organisation), in the restore's transaction; how many. */
export async function releaseHeldGrants(tx: Prisma.TransactionClient, warehouseId: string, orgId: string | null): Promise<number> {
  // Raw: one INSERT … SELECT moves every row; a principal who left the organisation meanwhile gets nothing back.
  const n = await tx.$executeRaw`
    INSERT INTO warehouse_grants (warehouse_id, principal_id, level, granted_by, granted_at)
    SELECT h.warehouse_id, h.principal_id, h.level, h.granted_by, h.granted_at FROM held_warehouse_grants h
     WHERE h.warehouse_id = ${warehouseId}
       ${orgId ? Prisma.sql`AND EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = ${orgId} AND m.principal_id = h.principal_id)` : Prisma.empty}
    ON CONFLICT (warehouse_id, principal_id) DO NOTHING`;
  await tx.heldWarehouseGrant.deleteMany({ where: { warehouseId } });
  return n;
}

/**
 * The held grants of these principals on these catalogs (being deleted), by
 * principal then catalog: who could see a deleted catalog is judged with them
 * standing in for the grants they were (packages/catalogs warehouses.ts).
 */
export async function heldGrantLevels(db: Db, principalIds: string[], warehouseIds: string[]): Promise<Map<string, Map<string, Level>>> {
  const by = new Map<string, Map<string, Level>>();
  if (!principalIds.length || !warehouseIds.length) return by;
  const rows = await db.heldWarehouseGrant.findMany({
    where: { principalId: { in: principalIds }, warehouseId: { in: warehouseIds } }, select: { principalId: true, warehouseId: true, level: true },
  });
  for (const r of rows) {
    if (!by.has(r.principalId)) by.set(r.principalId, new Map());
    by.get(r.principalId)!.set(r.warehouseId, r.level as Level);
  }
  return by;
}

/** A torn-down catalog's held grants gone, in the teardown's last transaction. */
export async function dropHeldGrants(tx: Prisma.TransactionClient, warehouseId: string): Promise<void> {
  await tx.heldWarehouseGrant.deleteMany({ where: { warehouseId } });
}
