import type { Express, Request } from 'express';
import type { z } from 'zod';
import { AgentGrantList, CreateAgentBody, UpdateAgentBody } from '@floe/api';
import { requireRecentSignIn } from '../access/load';
import { editAgent, revokeAgent, type AskedGrant, createAgent, getAgent, listAgents, roleOf, agentView, agentCreatedEvent } from '@floe/accounts';
import { badRequest, parse, route, writeAudit, writeAuditIn } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';

// Spec: Organisations and agents — token records (the rules are in
// domain/agents.ts and domain/agent-changes.ts). Creating, changing and
// revoking are sensitive changes (Authentication 7).

const DEPRECATION = '`warehouses`/`warehouse_ids` are read as write grants for one more version; send grants: [{warehouse_id, level}]';

const asked = (g: z.infer<typeof AgentGrantList>): AskedGrant[] => g.map((x) => ({ warehouse: x.warehouse_id, level: x.level }));

/** The grants of a create body; the older lists as write grants, with the deprecation to say so. */
function grantsOfCreate(b: z.infer<typeof CreateAgentBody>): { grants: AskedGrant[]; deprecation?: string } {
  const legacy = b.warehouses ?? b.warehouse_ids;
  if (legacy && b.grants) throw badRequest('invalid_value', 'send grants, or the older warehouses list, not both', { field: 'grants' });
  if (!legacy) return { grants: asked(b.grants ?? []) };
  return { grants: legacy.map((r) => ({ warehouse: typeof r === 'string' ? r : r.warehouse_id, level: 'write' as const })), deprecation: DEPRECATION };
}

const includeRevoked = (req: Request) => req.query.include_revoked === 'true';

export function mountAgents(app: Express, d: ControlPlaneDeps): void {
  const sensitive = [...d.authed, requireRecentSignIn(d.prisma)];

  route(app, '/v1/orgs/:org_id/agents', {
    get: [...d.authed, async (req, res) => {
      const { orgId, agents } = await listAgents(d.prisma, req.access!, String(req.params.org_id), includeRevoked(req));
      res.json({ org_id: orgId, agents: agents.map(agentView), count: agents.length });
    }],
    post: [...sensitive, async (req, res) => {
      const body = parse(CreateAgentBody, req.body);
      const { grants, deprecation } = grantsOfCreate(body);
      // The agent and its audit event commit together.
      const r = await createAgent(d, req.access!, String(req.params.org_id), { name: body.name, role: roleOf(body.role), grants, label: body.name, joinedVia: 'agent' },
        'refuse', (tx, made) => writeAuditIn(tx, req, agentCreatedEvent(made)));
      const view = agentView(r);
      res.status(201).json({
        ...view, api_key: r.apiKey, key_id: r.keyId, label: r.label, ...(deprecation ? { deprecation } : {}),
        note: 'The API key is shown once; store it now. DELETE /v1/orgs/{org_id}/agents/{agent_id} revokes it.',
      });
    }],
  });

  route(app, '/v1/orgs/:org_id/agents/:agent_id', {
    get: [...d.authed, async (req, res) => {
      res.json(agentView(await getAgent(d.prisma, req.access!, String(req.params.org_id), String(req.params.agent_id))));
    }],
    patch: [...sensitive, async (req, res) => {
      const body = parse(UpdateAgentBody, req.body ?? {});
      const r = await editAgent(d, req.access!, String(req.params.org_id), String(req.params.agent_id), {
        name: body.name, role: body.role ? roleOf(body.role) : undefined, grants: body.grants ? asked(body.grants) : undefined,
      });
      const view = agentView(r);
      const previous = { name: r.previous.name, role: r.previous.role, confined: r.previous.confined, grants: agentView({ ...r, grants: r.previous.grants }).grants };
      if (r.changes.length) {
        await writeAudit(d.db, req, { action: 'agent.update', orgId: r.orgId, targetType: 'agent', targetId: r.agent.agentId, data: { changes: r.changes, role: r.agent.role, previous_role: r.previous.role, grants: view.grants, previous } });
      }
      res.json({ ...view, updated: r.changes, previous });
    }],
    delete: [...sensitive, async (req, res) => {
      const r = await revokeAgent(d, req.access!, String(req.params.org_id), String(req.params.agent_id));
      if (!r.alreadyRevoked) {
        await writeAudit(d.db, req, { action: 'agent.revoke', orgId: r.orgId, targetType: 'agent', targetId: r.agent.agentId, data: { name: r.agent.name, keys_revoked: r.keysRevoked, grants_removed: r.grantsRemoved } });
      }
      res.json({ ...agentView(r), revoked: true, already_revoked: r.alreadyRevoked, keys_revoked: r.keysRevoked, grants_removed: r.grantsRemoved });
    }],
  });
}
