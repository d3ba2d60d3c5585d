import { badRequest, forbidden, notFound } from '@floe/http';
import type { AccessContext, OrgMembership } from '../access/context';
import { agentsOf, confine, replaceGrants, type AgentRecord } from '../agent-records';
import { setRole, underOrganizationLock } from '../members';
import { requirePolicyAllows } from '../orgs/org-policy';
import { membershipFor } from '../orgs/orgs';
import { renamePrincipal, suspendWithKeys } from '../principals';
import { grantsWithin, type AskedGrant, type HeldGrant } from './agent-grants';
import { agentDetail, findAgent, insufficientRole, keysRefused, nameTaken, type AgentDeps } from './agents';

// Spec: PATCH and DELETE /v1/orgs/{org_id}/agents/{agent_id}. An edit
// replaces the grants (capped by the editor's own), caps the role by the
// editor's, and confines a legacy unconfined agent; a token never edits
// itself unless it is an admin. Revoking refuses every key and suspends the
// agent at once. Admins change any agent; a member only the agents they made.

export interface AgentEdit {
  name?: string;
  role?: 'admin' | 'member';
  grants?: AskedGrant[];
}

/** Who may change this agent: an admin; otherwise its creator (a member), for a member agent. */
function requireEditor(m: OrgMembership, ctx: AccessContext, target: AgentRecord, what: string): void {
  if (m.role === 'admin') return;
  if (target.createdBy?.principalId !== ctx.principalId) throw insufficientRole(m, `${what} of an agent someone else made`);
  if (target.role === 'admin') throw insufficientRole(m, `${what} of an admin agent`);
}

// A revoked agent is kept for the record but is no live token to change.
const revoked = (a: AgentRecord) => notFound('token_not_found', `agent ${a.name} was revoked; make a new one`, { agent_id: a.agentId, status: 'revoked' });

export async function editAgent(d: AgentDeps, ctx: AccessContext, orgIdOrHandle: string, idOrName: string, e: AgentEdit) {
  // validate, authorize
  if (e.name === undefined && e.role === undefined && e.grants === undefined) throw badRequest('missing_field', 'send name, role and/or grants', { field: 'grants' });
  const m = membershipFor(ctx, orgIdOrHandle);
  const target = await findAgent(d.prisma, m.orgId, idOrName);
  if (target.status !== 'active') throw revoked(target);
  if (target.agentId === ctx.principalId && m.role !== 'admin') throw forbidden('forbidden', 'a token cannot change itself unless it is an admin', { role: m.role });
  requireEditor(m, ctx, target, 'changing');
  await requirePolicyAllows(d.prisma, m, 'agents');
  if (e.role === 'admin' && m.role !== 'admin') throw insufficientRole(m, 'making an admin agent');
  const before = await agentDetail(d.prisma, m.orgId, target.agentId);
  // A legacy unconfined agent is confined by any edit: it keeps what it held, capped by the editor, unless given a list.
  const asked = e.grants ?? (target.confined ? undefined : before.grants.map((g) => ({ warehouse: g.warehouseId, level: g.level })));
  const grants = asked ? await grantsWithin(d.prisma, d.catalogs, ctx, m, asked, e.grants ? 'refuse' : 'cap') : undefined;

  // act
  await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    // The name is checked and changed under the organisation's lock, as creates check theirs, so concurrent renames and creates leave one agent per name.
    if (e.name !== undefined && e.name !== target.name) {
      const same = (await agentsOf(tx, m.orgId, { idOrName: e.name })).find((x) => x.name === e.name);
      if (same && same.agentId !== target.agentId) throw nameTaken(e.name, same.agentId);
      // Already this agent's name: a concurrent request of the same rename landed first.
      if (!same) await renamePrincipal(tx, target.agentId, e.name);
    }
    if (e.role) await setRole(tx, m.orgId, target.agentId, e.role);
    if (grants) await replaceGrants(tx, m.orgId, target.agentId, grants.map((g) => ({ warehouseId: g.warehouseId, level: g.level })), ctx.principalId);
    if (!target.confined) await confine(tx, m.orgId, target.agentId);
  });
  const after = await agentDetail(d.prisma, m.orgId, target.agentId);
  return { ...after, changes: changesBetween(before.agent, before.grants, after.agent, after.grants), previous: { name: target.name, role: target.role, confined: target.confined, grants: before.grants } };
}

function changesBetween(a: AgentRecord, ag: HeldGrant[], b: AgentRecord, bg: HeldGrant[]): string[] {
  const key = (g: HeldGrant[]) => g.map((x) => `${x.warehouseId}:${x.level}`).sort().join(',');
  return [
    a.name !== b.name ? 'name' : null,
    a.role !== b.role ? 'role' : null,
    key(ag) !== key(bg) ? 'grants' : null,
    a.confined !== b.confined ? 'confined' : null,
  ].filter((x): x is string => x !== null);
}

/** DELETE …/agents/{id}: every key revoked and the agent suspended; again is the same answer with `already_revoked`. */
export async function revokeAgent(d: AgentDeps, ctx: AccessContext, orgIdOrHandle: string, idOrName: string) {
  const m = membershipFor(ctx, orgIdOrHandle);
  const target = await findAgent(d.prisma, m.orgId, idOrName);
  if (target.agentId !== ctx.principalId) requireEditor(m, ctx, target, 'revoking');
  // One revocation per agent: concurrent calls queue on the organisation's lock and find it done.
  const outcome = await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    const [now] = await agentsOf(tx, m.orgId, { idOrName: target.agentId, includeRevoked: true });
    if (now.status !== 'active') return { alreadyRevoked: true, keysRevoked: 0, grantsRemoved: 0 };
    const suspended = await suspendWithKeys(tx, target.agentId, true);
    const grantsRemoved = await replaceGrants(tx, m.orgId, target.agentId, [], ctx.principalId);
    return { alreadyRevoked: false, keysRevoked: suspended?.keysRevoked ?? 0, grantsRemoved };
  });
  if (!outcome.alreadyRevoked) await keysRefused(d);
  return { ...(await agentDetail(d.prisma, m.orgId, target.agentId)), ...outcome };
}
