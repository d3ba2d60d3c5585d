import type { Express } from 'express';
import { z } from 'zod';
import { forbidden, parse, requireBootstrapSecret, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { accessContextOf } from '../access/context';
import { createAgent } from '../domain/agents';
import { agentView } from '../responses';

// The agent an approved device login creates when the machine collects it
// (identity owns the device codes and calls this as the poll succeeds). The
// approver's grants are capped again by what they hold now: a level lost
// since the approval is not handed out. Bootstrap secret only.

const DeviceAgent = z.object({
  org_id: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  label: z.string().trim().min(1).max(200),
  /** The person who approved: the agent's creator, whose levels cap its grants. */
  cap_by: z.string().min(1),
  grants: z.array(z.object({ warehouse_id: z.string().min(1), level: z.enum(['read', 'write']) })).max(200),
  via: z.literal('device').default('device'),
});

export function mountInternalAgents(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/agents', {
    post: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const body = parse(DeviceAgent, req.body);
      const approver = await accessContextOf(d.prisma, body.cap_by);
      if (!approver || approver.kind !== 'human') throw forbidden('forbidden', 'the approver is no longer an active person');
      const r = await createAgent(d, approver, body.org_id, {
        name: body.name, role: 'member', grants: body.grants.map((g) => ({ warehouse: g.warehouse_id, level: g.level })), label: body.label, joinedVia: 'device',
      }, 'cap');
      const view = agentView(r);
      await writeAudit(d.db, req, {
        action: 'agent.create', actorId: approver.principalId, actorKind: 'human', orgId: r.orgId, targetType: 'agent', targetId: r.agent.agentId,
        data: { name: r.agent.name, role: r.agent.role, grants: view.grants, key_id: r.keyId, via: 'device' },
      });
      res.status(201).json({ ...view, api_key: r.apiKey, key_id: r.keyId, label: r.label });
    }],
  });
}
