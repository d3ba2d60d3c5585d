import type { Express } from 'express';
import { z } from 'zod';
import { accessContextOf, createAgent, replaceMcpGrants } from '@floe/accounts';
import { forbidden, parse, requireBootstrapSecret, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { agentView } from '../responses';

// The agent an approved device login creates when the machine collects it
// (identity owns the device codes and calls this as the poll succeeds), and
// the token record of kind `mcp` an allowed OAuth consent creates (`kind:
// mcp`, `via: oauth`: no API key; identity mints its access tokens), or
// reuses (`reuse_agent_id`: the record bound to the person and the client,
// its grants replaced; `reused: false` when it is gone and a new one was
// made). The approver's grants are capped again by what they hold now: a
// level lost since the approval is not handed out. Bootstrap secret only.

const DeviceAgent = z.object({
  org_id: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  label: z.string().trim().min(1).max(200),
  /** The person who approved: the agent's creator, whose levels cap its grants. */
  cap_by: z.string().min(1),
  grants: z.array(z.object({ warehouse_id: z.string().min(1), level: z.enum(['read', 'write']) })).max(200),
  via: z.enum(['device', 'oauth']).default('device'),
  kind: z.enum(['agent', 'mcp']).default('agent'),
  role: z.enum(['member', 'admin']).default('member'),
  reuse_agent_id: z.string().min(1).max(100).optional(),
  /** What the agent is for (identity: `device_login:<id>`); asked again, the agent made the first time is revoked and replaced. */
  source_ref: z.string().min(1).max(200).optional(),
}).refine((b) => (b.kind === 'mcp') === (b.via === 'oauth'), { message: 'kind mcp goes with via oauth, kind agent with via device' })
  .refine((b) => b.via === 'oauth' || (b.role === 'member' && !b.reuse_agent_id), { message: 'a device login makes a member agent, never reuses one' });

export function mountInternalAgents(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/agents', {
    post: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const body = parse(DeviceAgent, req.body);
      const approver = await accessContextOf(d.prisma, body.cap_by);
      if (!approver || approver.kind !== 'human') throw forbidden('forbidden', 'the approver is no longer an active person');
      const grants = body.grants.map((g) => ({ warehouse: g.warehouse_id, level: g.level }));
      if (body.reuse_agent_id) {
        const reused = await replaceMcpGrants(d, approver, body.org_id, body.reuse_agent_id, { role: body.role, grants });
        if (reused) {
          const view = agentView(reused);
          await writeAudit(d.db, req, {
            action: 'agent.grants_replace', actorId: approver.principalId, actorKind: 'human', orgId: reused.orgId, targetType: 'agent', targetId: reused.agent.agentId,
            data: { name: reused.agent.name, role: reused.agent.role, grants: view.grants, via: body.via },
          });
          res.json({ ...view, api_key: null, key_id: null, label: body.label, reused: true });
          return;
        }
      }
      const r = await createAgent(d, approver, body.org_id, { name: body.name, role: body.role, grants, label: body.label, joinedVia: body.via, sourceRef: body.source_ref }, 'cap');
      if (r.replaced) {
        await writeAudit(d.db, req, {
          action: 'agent.revoke', actorId: approver.principalId, actorKind: 'human', orgId: r.orgId, targetType: 'agent', targetId: r.replaced,
          data: { reason: 'key_never_delivered', source_ref: body.source_ref, replaced_by: r.agent.agentId },
        });
      }
      const view = agentView(r);
      await writeAudit(d.db, req, {
        action: 'agent.create', actorId: approver.principalId, actorKind: 'human', orgId: r.orgId, targetType: 'agent', targetId: r.agent.agentId,
        data: { name: r.agent.name, role: r.agent.role, grants: view.grants, key_id: r.keyId, via: body.via },
      });
      res.status(201).json({ ...view, api_key: r.apiKey, key_id: r.keyId, label: r.label, reused: false });
    }],
  });
}
