import type { AgentDetail } from './agents';

// The spec's agent (token record) as every surface answers it — the control
// plane's agent routes, a device login's collection and an OAuth consent in
// identity — with the connection block a client keeps.

const iso = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);

export const agentView = (d: AgentDetail) => {
  const a = d.agent;
  const grants = d.grants.map((g) => ({ warehouse_id: g.warehouseId, name: g.name, level: g.level }));
  const createdBy = a.createdBy ? { principal_id: a.createdBy.principalId, kind: a.createdBy.kind, display: a.createdBy.display } : null;
  return {
    agent_id: a.agentId,
    principal_id: a.agentId,
    name: a.name,
    kind: a.kind,
    role: a.role,
    status: a.status === 'active' ? 'active' : 'revoked',
    org_id: d.orgId,
    confined: a.confined,
    grants,
    created_by: createdBy,
    created_at: iso(a.createdAt),
    created_via: a.joinedVia,
    last_key_use: a.lastKeyUse ? { key_id: a.lastKeyUse.keyId, at: iso(a.lastKeyUse.at) } : null,
    ...(d.keys ? { keys: d.keys.map((k) => ({ key_id: k.keyId, label: k.label, created_at: iso(k.createdAt), last_used_at: iso(k.lastUsedAt), revoked_at: iso(k.revokedAt) })) } : {}),
    connection: { agent_id: a.agentId, name: a.name, org_id: d.orgId, role: a.role, warehouses: grants, created_by: createdBy?.principal_id ?? null, grants },
  };
};
