import type { Db } from '@floe/db';
import { badRequest, notFound } from '@floe/http';
import type { AccessContext, OrgMembership } from '../access/context';
import { forbiddenNamingGranters, type CatalogFinder } from '../access/require';
import { grantsOn, orgCatalogs, type AgentRecord } from '../agent-records';
import { accessOf, rank, type Level } from '../levels';

// What a token record holds: the grants it is given (each capped by the giver,
// Authentication 5) and the levels it holds because of them. One home for both,
// used by the agent routes and by device approval.

export interface HeldGrant {
  warehouseId: string;
  name: string;
  level: 'read' | 'write';
}

export interface AskedGrant {
  /** A warehouse id or name. */
  warehouse: string;
  level: 'read' | 'write';
}

/**
 * The grants a giver may hand out, resolved to the organisation's catalogs.
 * An admin gives anything; anyone else at most their own level per catalog:
 * `refuse` answers 403 `forbidden` (naming who can grant) past it, `cap`
 * lowers the level to theirs and drops catalogs they hold nothing on.
 */
export async function grantsWithin(db: Db, catalogs: CatalogFinder, giver: AccessContext, m: OrgMembership, asked: AskedGrant[], mode: 'refuse' | 'cap'): Promise<HeldGrant[]> {
  const out = new Map<string, HeldGrant>();
  for (const a of asked) {
    const w = await catalogs.resolve(db, giver, a.warehouse);
    if (w.orgId !== m.orgId) {
      throw notFound('warehouse_not_found', `no warehouse ${JSON.stringify(a.warehouse)} in ${m.handle}`, { remedy: 'pass a warehouse_id or name from GET /v1/warehouses' });
    }
    if (out.has(w.id)) throw badRequest('invalid_value', `warehouse ${w.name} is listed twice`, { field: 'grants' });
    let level: Level = a.level;
    if (m.role !== 'admin' && rank(level) > rank(w.access.level)) {
      if (mode === 'refuse') {
        throw await forbiddenNamingGranters(db, w, `you can give at most ${w.access.level} on ${w.name}, the level you hold`, { level: w.access.level, needed: a.level });
      }
      level = w.access.level;
    }
    if (level !== 'none') out.set(w.id, { warehouseId: w.id, name: w.name, level });
  }
  return [...out.values()];
}

/** The levels each token record holds on the organisation's catalogs (an admin token: all at write; a legacy unconfined one: all at write via `agent`). */
export async function heldGrants(db: Db, orgId: string, agents: AgentRecord[]): Promise<Map<string, HeldGrant[]>> {
  const catalogs = await orgCatalogs(db, orgId);
  const explicit = agents.length && catalogs.length ? await grantsOn(db, agents.map((a) => a.agentId), catalogs.map((c) => c.id)) : [];
  const held = new Map<string, HeldGrant[]>();
  for (const a of agents) {
    const grants: HeldGrant[] = [];
    for (const c of catalogs) {
      const g = explicit.find((e) => e.principalId === a.agentId && e.warehouseId === c.id);
      const access = accessOf({
        principalId: a.agentId, kind: a.kind, membership: { role: a.role, confined: a.confined }, ownsProject: false, createdBy: c.createdBy,
        grant: g ? { level: g.level as Level } : null,
      });
      if (access.visible && access.level !== 'none') grants.push({ warehouseId: c.id, name: c.name, level: access.level });
    }
    held.set(a.agentId, a.status === 'active' ? grants : []);
  }
  return held;
}
