import type { Redis } from 'ioredis';
import { bumpCredentialEpoch } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { Db, Prisma, PrismaClient } from '@floe/db';
import { conflict, forbidden, notFound } from '@floe/http';
import type { AccessContext, OrgMembership } from '../access/context';
import type { CatalogFinder } from '../access/require';
import { agentsOf, keysOf, replaceGrants, type AgentKey, type AgentRecord } from '../agent-records';
import { addMembership, creatorOf, isMember, setRole, underOrganizationLock } from '../members';
import { activePrincipal } from '../memberships';
import { requirePolicyAllows, type PolicyAction } from '../orgs/org-policy';
import { membershipFor } from '../orgs/orgs';
import { createPrincipal, createPrincipalWithKey } from '../principals';
import { grantsWithin, heldGrants, type AskedGrant, type HeldGrant } from './agent-grants';

// Spec: Organisations and agents — token records. An agent is a principal
// with a key (packages/accounts) that is a member of one organisation with a
// role and grants, all made in one transaction under the organisation's lock. A member token sees only the catalogs it
// was granted; an admin token sees every catalog. Admins create agents of
// either role with any grants; members only member agents, each grant capped
// by their own level. Names are unique among an organisation's live agents.

export interface AgentDeps {
  prisma: PrismaClient;
  /** A revocation bumps the credential epoch, so every deployable's credential cache reads again. */
  redis: Redis;
  config: Pick<FloeConfig, 'redisPrefix'>;
  /** Finds the catalogs a grant names (the catalogs aggregate). */
  catalogs: CatalogFinder;
}

/** After a transaction that refused keys commits: every cached credential is read again. */
export const keysRefused = (d: Pick<AgentDeps, 'redis' | 'config'>) => bumpCredentialEpoch(d.redis, d.config.redisPrefix);

/** What a transaction made an agent as, for what runs beside it in that transaction. */
export interface MadeAgent {
  orgId: string;
  agentId: string;
  keyId: string | null;
  name: string;
  role: 'admin' | 'member';
  grants: HeldGrant[];
}

/** The `agent.create` audit event of an agent made (written in its transaction); `via` for one a device login or a consent made. */
export function agentCreatedEvent(made: MadeAgent, via?: 'device' | 'oauth') {
  const grants = made.grants.map((g) => ({ warehouse_id: g.warehouseId, name: g.name, level: g.level }));
  return {
    action: 'agent.create', orgId: made.orgId, targetType: 'agent', targetId: made.agentId,
    data: { name: made.name, role: made.role, grants, key_id: made.keyId, ...(via ? { via } : {}) },
  };
}

export interface AgentDetail {
  orgId: string;
  agent: AgentRecord;
  grants: HeldGrant[];
  keys?: AgentKey[];
}

export interface NewAgent {
  name: string;
  role: 'admin' | 'member';
  grants: AskedGrant[];
  /** The first key's label (device logins: the host). */
  label: string;
  /** `agent` from the route, `device` from an approved device login, `oauth` from an allowed OAuth consent (kind `mcp`, no key). */
  joinedVia: 'agent' | 'device' | 'oauth';
  /** What the agent is made for (`device_login:<id>`): one agent per ref in an organisation (a unique key). */
  sourceRef?: string;
}

/** The organisation policy's field that governs making an agent this way (the approver's role is judged for device logins and consents). */
const POLICY_ACTION_OF: Record<NewAgent['joinedVia'], PolicyAction> = { agent: 'agents', device: 'device_login', oauth: 'oauth_consent' };

export const insufficientRole = (m: OrgMembership, what: string) =>
  forbidden('insufficient_role', `${what} is for an admin of ${m.handle}; you are a member`, { role: m.role, needed: 'admin' });

export const nameTaken = (name: string, id: string) =>
  conflict('already_exists', `a live agent named ${name} already exists in this organisation`, { agent_id: id, remedy: 'choose another name, or revoke the other agent first' });

/** A token whose creator is no longer a live member of the organisation makes no tokens (403 `creator_revoked`). */
async function requireLiveCreator(prisma: PrismaClient, ctx: AccessContext, orgId: string): Promise<void> {
  if (!ctx.token) return;
  const creator = await creatorOf(prisma, orgId, ctx.principalId);
  if (!creator) return;
  if (!(await isMember(prisma, orgId, creator)) || !(await activePrincipal(prisma, creator))) throw forbidden('creator_revoked', 'the person who made this token is no longer in the organisation; it cannot make tokens', { created_by: creator });
}

/** A free name for a device login's agent: the host's, or the host's with the first free `-n`. */
function freeName(wanted: string, taken: Set<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}

/** POST /v1/orgs/{org_id}/agents (and an approved device login, which caps rather than refuses): the agent with its key, shown once. */
export async function createAgent(
  d: AgentDeps, ctx: AccessContext, orgIdOrHandle: string, a: NewAgent, mode: 'refuse' | 'cap' = 'refuse',
  /** Runs inside the transaction that makes the agent (its audit event; a device login recorded as collected with it). */
  alongside?: (tx: Prisma.TransactionClient, made: MadeAgent) => Promise<void>,
) {
  // authorize: a tool host's token record acts for 15 minutes at a time on what a person consented; it never mints lasting keys
  if (ctx.kind === 'mcp') throw forbidden('forbidden', 'an OAuth access token cannot make agents; an admin or member makes them');
  const m = membershipFor(ctx, orgIdOrHandle);
  if (a.role === 'admin' && m.role !== 'admin') throw insufficientRole(m, 'an admin agent');
  await requirePolicyAllows(d.prisma, m, POLICY_ACTION_OF[a.joinedVia]);
  await requireLiveCreator(d.prisma, ctx, m.orgId);
  const grants = await grantsWithin(d.prisma, d.catalogs, ctx, m, a.grants, mode);

  // act: the principal, its key (none for a token record), its membership and grants in one transaction under the organisation's lock
  const made = await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    const before = await agentsOf(tx, m.orgId);
    const name = a.joinedVia !== 'agent' ? freeName(a.name, new Set(before.map((x) => x.name))) : a.name;
    const same = before.find((x) => x.name === name);
    if (same) throw nameTaken(name, same.agentId);
    const created = a.joinedVia === 'oauth'
      ? { principal: await createPrincipal(tx, { kind: 'mcp', email: null, displayName: name }), key: null }
      : await createPrincipalWithKey(tx, { kind: 'agent', email: null, displayName: name, label: a.label });
    const agentId = created.principal.principalId;
    await addMembership(tx, { orgId: m.orgId, principalId: agentId, role: a.role, joinedVia: a.joinedVia, createdBy: ctx.principalId, sourceRef: a.sourceRef });
    await replaceGrants(tx, m.orgId, agentId, grants.map((g) => ({ warehouseId: g.warehouseId, level: g.level })), ctx.principalId);
    await alongside?.(tx, { orgId: m.orgId, agentId, keyId: created.key?.keyId ?? null, name, role: a.role, grants });
    return { agentId, key: created.key };
  });
  const detail = await agentDetail(d.prisma, m.orgId, made.agentId);
  return { ...detail, apiKey: made.key?.apiKey ?? null, keyId: made.key?.keyId ?? null, label: a.label };
}

/**
 * An allowed OAuth consent of a person who consented to this client before:
 * the token record bound to them (kind `mcp`, live, still in the organisation)
 * gets exactly the grants chosen now (capped by the person's levels) and the
 * role asked. Null when that record is gone (revoked, left): make a new one.
 */
export async function replaceMcpGrants(d: AgentDeps, ctx: AccessContext, orgId: string, agentId: string, a: Pick<NewAgent, 'role' | 'grants'>): Promise<AgentDetail | null> {
  const m = membershipFor(ctx, orgId);
  if (a.role === 'admin' && m.role !== 'admin') throw insufficientRole(m, 'an admin token');
  await requirePolicyAllows(d.prisma, m, 'oauth_consent');
  const [record] = await agentsOf(d.prisma, m.orgId, { idOrName: agentId });
  if (!record || record.agentId !== agentId || record.kind !== 'mcp' || record.status !== 'active') return null;
  const grants = await grantsWithin(d.prisma, d.catalogs, ctx, m, a.grants, 'cap');
  await underOrganizationLock(d.prisma, m.orgId, async (tx) => {
    if (record.role !== a.role) await setRole(tx, m.orgId, agentId, a.role);
    await replaceGrants(tx, m.orgId, agentId, grants.map((g) => ({ warehouseId: g.warehouseId, level: g.level })), ctx.principalId);
  });
  return agentDetail(d.prisma, m.orgId, agentId);
}

/** GET …/agents: the organisation's token records (any member reads them), revoked ones too when asked. */
export async function listAgents(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string, includeRevoked: boolean): Promise<{ orgId: string; agents: AgentDetail[] }> {
  const m = membershipFor(ctx, orgIdOrHandle);
  const agents = await agentsOf(prisma, m.orgId, { includeRevoked });
  const held = await heldGrants(prisma, m.orgId, agents);
  return { orgId: m.orgId, agents: agents.map((agent) => ({ orgId: m.orgId, agent, grants: held.get(agent.agentId) ?? [] })) };
}

/** One token record by id, or by name among the live ones: 404 `token_not_found`, 409 `ambiguous_name`. */
export async function findAgent(prisma: PrismaClient, orgId: string, idOrName: string): Promise<AgentRecord> {
  const found = await agentsOf(prisma, orgId, { idOrName, includeRevoked: true });
  const byId = found.find((a) => a.agentId === idOrName);
  if (byId) return byId;
  const live = found.filter((a) => a.status === 'active');
  const named = live.length ? live : found;
  if (named.length > 1) {
    throw conflict('ambiguous_name', `${named.length} agents are named ${idOrName}; use an agent_id`, {
      candidates: named.map((a) => ({ agent_id: a.agentId, name: a.name, status: a.status, created_at: a.createdAt.toISOString() })),
    });
  }
  if (!named.length) throw notFound('token_not_found', `no agent with id or name ${JSON.stringify(idOrName)} in this organisation`, { remedy: 'GET /v1/orgs/{org_id}/agents lists them' });
  return named[0];
}

/** GET …/agents/{id}: the record, its grants and its keys (never a secret). */
export async function getAgent(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string, idOrName: string): Promise<AgentDetail> {
  const m = membershipFor(ctx, orgIdOrHandle);
  return agentDetail(prisma, m.orgId, (await findAgent(prisma, m.orgId, idOrName)).agentId);
}

export async function agentDetail(prisma: PrismaClient, orgId: string, agentId: string): Promise<AgentDetail> {
  const [agent] = await agentsOf(prisma, orgId, { idOrName: agentId, includeRevoked: true });
  const held = await heldGrants(prisma, orgId, [agent]);
  return { orgId, agent, grants: held.get(agentId) ?? [], keys: await keysOf(prisma, agentId) };
}

/**
 * A token record of this organisation with the levels it holds, revoked ones
 * included (the caller judges `status`); null when the record is not a member
 * of the organisation (never made there, or gone). Identity's consent page
 * reads the record bound to a person and a client through this.
 */
export async function recordHolding(prisma: PrismaClient, orgId: string, agentId: string): Promise<AgentDetail | null> {
  const [agent] = await agentsOf(prisma, orgId, { idOrName: agentId, includeRevoked: true });
  if (!agent || agent.agentId !== agentId) return null;
  const held = await heldGrants(prisma, orgId, [agent]);
  return { orgId, agent, grants: held.get(agentId) ?? [] };
}
