import type { SqlClient } from '@floe/http';

// Who made an agent, and whether they still stand: the one home of the rule
// that an agent holds no more than its maker holds now. The maker is
// memberships.created_by in the agent's organisation: the person whose key or
// session made it, or who approved its device login; or the agent whose key
// made it, and then that agent's maker, up to a person. Authentication
// refuses an agent whose chain has a maker that no longer stands (403
// `creator_revoked`); the control plane caps the agent's role and levels by
// every maker's. An agent with no recorded maker (made before makers were
// recorded, or by the deployment itself) stands on its own role and grants.

export interface AgentMaker {
  principalId: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator' | null;
  orgId: string;
  /** 1 for the agent's own maker, 2 for that maker's maker, … */
  depth: number;
  /** Active, and still a member of the agent's organisation. */
  stands: boolean;
}

/** At most this many makers are followed (agents made by agents made by agents…); deeper links are not judged. */
export const MAX_MAKER_DEPTH = 16;

/** The agent's makers, nearest first; empty when none is recorded. */
export async function agentMakers(db: SqlClient, agentId: string): Promise<AgentMaker[]> {
  // Raw over pg: a recursive walk over memberships (packages/auth runs on the pool every deployable has); on the auth path once per agent credential per epoch.
  const { rows } = await db.query<{ id: string; kind: AgentMaker['kind']; org_id: string; depth: number; stands: boolean }>({
    name: 'auth_agent_makers',
    text: `WITH RECURSIVE chain (org_id, id, depth) AS (
         SELECT m.org_id, m.created_by, 1 FROM memberships m
          WHERE m.principal_id = $1 AND m.created_by IS NOT NULL AND m.created_by <> m.principal_id
         UNION ALL
         SELECT m.org_id, m.created_by, c.depth + 1
           FROM chain c JOIN principals p ON p.id = c.id AND p.kind IN ('agent', 'mcp')
           JOIN memberships m ON m.org_id = c.org_id AND m.principal_id = c.id
          WHERE m.created_by IS NOT NULL AND m.created_by <> m.principal_id AND c.depth < $2)
       SELECT c.id, p.kind::text AS kind, c.org_id, c.depth,
              (p.status = 'active' AND m.principal_id IS NOT NULL) IS TRUE AS stands
         FROM chain c
         LEFT JOIN principals p ON p.id = c.id
         LEFT JOIN memberships m ON m.org_id = c.org_id AND m.principal_id = c.id
        ORDER BY c.depth, c.id`,
    values: [agentId, MAX_MAKER_DEPTH],
  });
  return rows.map((r) => ({ principalId: r.id, kind: r.kind, orgId: r.org_id, depth: Number(r.depth), stands: r.stands }));
}
