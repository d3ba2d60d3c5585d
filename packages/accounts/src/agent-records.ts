import { Prisma, type Db } from '@floe/db';
import type { Level } from './levels';

// Token records (agents, and `mcp` records of OAuth approval) as their
// organisation sees them: the membership (role, confined, creator), the
// principal identity writes (name, status) and the last use of any key. The
// records' grants are ordinary warehouse grants (store/grants.ts writes one;
// here a whole list is replaced at once).

export interface AgentRecord {
  agentId: string;
  kind: 'agent' | 'mcp';
  name: string;
  status: 'active' | 'suspended';
  role: 'admin' | 'member';
  confined: boolean;
  joinedVia: string;
  createdAt: Date;
  createdBy: { principalId: string; kind: string; display: string | null } | null;
  lastKeyUse: { keyId: string; at: Date } | null;
}

type AgentRow = {
  principal_id: string; kind: AgentRecord['kind']; name: string | null; status: AgentRecord['status']; role: AgentRecord['role']; confined: boolean;
  joined_via: string; created_at: Date; created_by: string | null; creator_kind: string | null; creator_display: string | null;
  last_key_id: string | null; last_used_at: Date | null;
};

const toRecord = (r: AgentRow): AgentRecord => ({
  agentId: r.principal_id, kind: r.kind, name: r.name ?? r.principal_id, status: r.status, role: r.role, confined: r.confined, joinedVia: r.joined_via,
  createdAt: r.created_at,
  createdBy: r.created_by ? { principalId: r.created_by, kind: r.creator_kind ?? 'unknown', display: r.creator_display } : null,
  lastKeyUse: r.last_key_id && r.last_used_at ? { keyId: r.last_key_id, at: r.last_used_at } : null,
});

/**
 * The organisation's token records, oldest first: live ones, or with
 * `includeRevoked` the revoked (suspended) ones too; `idOrName` narrows to
 * the record with that id or those with that name.
 */
export async function agentsOf(db: Db, orgId: string, o: { idOrName?: string; includeRevoked?: boolean } = {}): Promise<AgentRecord[]> {
  // Raw: the last-used key of each (LATERAL, which the client cannot say), with the creator's label, in one statement.
  const rows = await db.$queryRaw<AgentRow[]>`
    SELECT m.principal_id, p.kind::text AS kind, p.display_name AS name, p.status::text AS status, m.role, m.confined, m.joined_via,
           m.created_at, m.created_by, c.kind::text AS creator_kind, COALESCE(c.email, c.display_name) AS creator_display,
           k.key_id AS last_key_id, k.last_used_at
      FROM memberships m JOIN principals p ON p.id = m.principal_id
      LEFT JOIN principals c ON c.id = m.created_by
      LEFT JOIN LATERAL (SELECT key_id, last_used_at FROM api_keys
                          WHERE principal_id = m.principal_id AND last_used_at IS NOT NULL ORDER BY last_used_at DESC LIMIT 1) k ON true
     WHERE m.org_id = ${orgId} AND p.kind IN ('agent', 'mcp') AND p.status <> 'deleted'
       ${o.includeRevoked ? Prisma.empty : Prisma.sql`AND p.status = 'active'`}
       ${o.idOrName ? Prisma.sql`AND (m.principal_id = ${o.idOrName} OR p.display_name = ${o.idOrName})` : Prisma.empty}
     ORDER BY m.created_at, m.principal_id`;
  return rows.map(toRecord);
}

export interface AgentKey {
  keyId: string;
  label: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

/** A token record's keys by id (identity writes them; never their hashes), newest first. */
export function keysOf(db: Db, agentId: string): Promise<AgentKey[]> {
  return db.apiKey.findMany({
    where: { principalId: agentId },
    select: { keyId: true, label: true, createdAt: true, lastUsedAt: true, revokedAt: true },
    orderBy: [{ createdAt: 'desc' }, { keyId: 'asc' }],
  });
}

export interface OrgCatalog {
  id: string;
  name: string;
  createdBy: string | null;
}

/** The organisation's live catalogs (not being deleted), oldest first. */
export function orgCatalogs(db: Db, orgId: string): Promise<OrgCatalog[]> {
  return db.warehouse.findMany({
    where: { orgId, status: { notIn: ['creating', 'deleting', 'deleted'] } },
    select: { id: true, name: true, createdBy: true },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
}

/** The explicit grant rows of these principals on these warehouses. */
export function grantsOn(db: Db, principalIds: string[], warehouseIds: string[]): Promise<Array<{ principalId: string; warehouseId: string; level: string }>> {
  return db.warehouseGrant.findMany({
    where: { principalId: { in: principalIds }, warehouseId: { in: warehouseIds } },
    select: { principalId: true, warehouseId: true, level: true },
  });
}

/** Replaces the principal's grants on the organisation's catalogs with `grants`; how many rows it removed. */
export async function replaceGrants(
  db: Db, orgId: string, principalId: string, grants: Array<{ warehouseId: string; level: Level }>, grantedBy: string,
): Promise<number> {
  const warehouses = await db.warehouse.findMany({ where: { orgId }, select: { id: true } });
  const { count } = await db.warehouseGrant.deleteMany({ where: { principalId, warehouseId: { in: warehouses.map((w) => w.id) } } });
  if (grants.length) {
    await db.warehouseGrant.createMany({ data: grants.map((g) => ({ warehouseId: g.warehouseId, principalId, level: g.level, grantedBy })) });
  }
  return count;
}

/** An unconfined (legacy) agent becomes confined: from now on it holds only its grants. */
export async function confine(db: Db, orgId: string, principalId: string): Promise<void> {
  await db.membership.updateMany({ where: { orgId, principalId }, data: { confined: true } });
}
