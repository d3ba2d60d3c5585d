import type { Request } from 'express';
import type { Prisma } from '@floe/db';
import { forbidden, writeAudit, writeAuditIn, type SqlClient } from '@floe/http';
import { accessContextOf, membershipIn } from '../access/context';
import { agentView } from './agent-view';
import { agentCreatedEvent, createAgent, replaceMcpGrants, type AgentDeps, type MadeAgent } from './agents';

// What a person's decision in identity makes, in identity's own process: the
// agent an approved device login creates when the machine collects it, and
// the token record (kind `mcp`, no key: identity mints its access tokens) an
// allowed OAuth consent creates or reuses (`reuseAgentId`: the record bound
// to the person and the client, its grants replaced; made anew when it is
// gone). The approver's grants are capped again by what they hold now: a
// level lost since the approval is not handed out, nor an admin role (an
// approver demoted since gives a member).

export interface ApprovedAgentAsk {
  orgId: string;
  name: string;
  /** The first key's label (a device login's host; `oauth` for a token record). */
  label: string;
  /** The person who approved: the agent's creator, whose levels cap its grants. */
  approverId: string;
  grants: Array<{ warehouse_id: string; level: 'read' | 'write' }>;
  via: 'device' | 'oauth';
  /** The role approved (default member): admin only while the approver is an admin of the organisation. */
  role?: 'admin' | 'member';
  reuseAgentId?: string;
  /** What the agent is for (`device_login:<id>`): one agent per ref in an organisation. */
  sourceRef?: string;
  /** Runs inside the transaction that makes the agent (a device login recorded as collected with it). */
  alongside?: (tx: Prisma.TransactionClient, made: MadeAgent) => Promise<void>;
}

export type ApprovedAgent = ReturnType<typeof agentView> & { api_key: string | null; key_id: string | null; label: string; reused: boolean };

export async function makeApprovedAgent(d: AgentDeps & { db: SqlClient }, req: Request, a: ApprovedAgentAsk): Promise<ApprovedAgent> {
  const approver = await accessContextOf(d.prisma, a.approverId);
  if (!approver || approver.kind !== 'human') throw forbidden('forbidden', 'the approver is no longer an active person');
  const grants = a.grants.map((g) => ({ warehouse: g.warehouse_id, level: g.level }));
  const role = a.role === 'admin' && membershipIn(approver, a.orgId)?.role === 'admin' ? 'admin' : 'member';
  if (a.reuseAgentId) {
    const reused = await replaceMcpGrants(d, approver, a.orgId, a.reuseAgentId, { role, grants });
    if (reused) {
      const view = agentView(reused);
      await writeAudit(d.db, req, {
        action: 'agent.grants_replace', actorId: approver.principalId, actorKind: 'human', orgId: reused.orgId, targetType: 'agent', targetId: reused.agent.agentId,
        data: { name: reused.agent.name, role: reused.agent.role, grants: view.grants, via: a.via },
      });
      return { ...view, api_key: null, key_id: null, label: a.label, reused: true };
    }
  }
  // The agent, its audit event and what the caller adds (a collected login) commit together.
  const r = await createAgent(d, approver, a.orgId, { name: a.name, role, grants, label: a.label, joinedVia: a.via, sourceRef: a.sourceRef }, 'cap', async (tx, made) => {
    await writeAuditIn(tx, req, { ...agentCreatedEvent(made, a.via), actorId: approver.principalId, actorKind: 'human' });
    await a.alongside?.(tx, made);
  });
  return { ...agentView(r), api_key: r.apiKey, key_id: r.keyId, label: r.label, reused: false };
}
