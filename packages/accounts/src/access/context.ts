import { agentMakers, scopesAllowWrites } from '@floe/auth';
import type { Db } from '@floe/db';
import { forbidden, type Caller, type SqlClient } from '@floe/http';
import { grantLevelsOf } from '../grants';
import { isToken, type Level } from '../levels';
import { activePrincipal, membershipsOf, type MembershipRecord } from '../memberships';
import type { PrincipalKind } from '../principals';

// Who the caller is beyond its credential: the organisations it belongs to
// and its role in each. Loaded once per request, after authentication (the
// control plane's access/load.ts), or for a person acting through identity.

export type OrgMembership = MembershipRecord;

export interface AccessContext {
  principalId: string;
  kind: PrincipalKind;
  email: string | null;
  /** True for agent and mcp tokens: they see only what they were granted. */
  token: boolean;
  /** An OAuth access token without `catalogs:write`: every level it holds is read. */
  readOnly?: boolean;
  memberships: OrgMembership[];
  /**
   * Whose standing caps a token's, judged on every request: nothing it holds
   * goes past what each of them holds now (their role in each organisation,
   * their level on each catalog). An OAuth access token acts for the person
   * who consented; an agent for its makers (packages/auth agent-makers.ts:
   * the person who made it or approved its device login, or the agent that
   * made it and that agent's makers). A maker demoted, or whose read on a
   * catalog was revoked, takes that from the token at once.
   */
  cappedBy?: Capper[];
}

export interface Capper {
  principalId: string;
  kind: PrincipalKind;
  memberships: OrgMembership[];
  grants: Map<string, Level>;
}

const READS = new Set(['GET', 'HEAD']);

/** An authenticated caller's access context for a request of `method`. `sql` is the pool the Prisma client runs over (the makers' walk is packages/auth's). */
export async function callerAccess(db: Db, sql: SqlClient, c: Caller, method: string): Promise<AccessContext> {
  const readOnly = c.oauth !== undefined && !scopesAllowWrites(c.oauth.scopes);
  // A read-scoped OAuth token changes nothing: its levels are capped at read (levels.ts) and every other change refused here,
  // so an admin's token record consented for reading cannot delete or publish either.
  if (readOnly && !READS.has(method)) {
    throw forbidden('insufficient_scope', 'this access token was consented for reading (catalogs:read); authorize again with catalogs:write to change anything');
  }
  const memberships = await membershipsOf(db, c.principalId);
  const cappedBy = await cappersOf(db, sql, c);
  return {
    principalId: c.principalId, kind: c.kind, email: c.email, token: isToken(c.kind), readOnly,
    memberships: cappedBy ? memberships.map((m) => cappedRole(m, cappedBy)) : memberships,
    cappedBy,
  };
}

/** An OAuth token's person; an agent's makers (authentication already refused one whose makers do not all stand); nobody for anyone else. */
async function cappersOf(db: Db, sql: SqlClient, c: Caller): Promise<Capper[] | undefined> {
  if (c.oauth) return [await capperOf(db, c.oauth.personId, 'human')];
  if (c.kind !== 'agent') return undefined;
  const makers = await agentMakers(sql, c.principalId);
  return makers.length ? Promise.all(makers.map((m) => capperOf(db, m.principalId, m.kind ?? 'agent'))) : undefined;
}

async function capperOf(db: Db, principalId: string, kind: PrincipalKind): Promise<Capper> {
  const [memberships, grants] = await Promise.all([membershipsOf(db, principalId), grantLevelsOf(db, principalId)]);
  return { principalId, kind, memberships, grants };
}

/** A token's role in an organisation, never above any capper's there (an admin token of a person since demoted acts as a member). */
function cappedRole(m: OrgMembership, cappers: Capper[]): OrgMembership {
  const below = cappers.some((c) => c.memberships.find((x) => x.orgId === m.orgId)?.role !== 'admin');
  return m.role === 'admin' && below ? { ...m, role: 'member' } : m;
}

/** The access context of a principal acting through another service (identity's device approval): null for one that is not active. */
export async function accessContextOf(db: Db, principalId: string): Promise<AccessContext | null> {
  const p = await activePrincipal(db, principalId);
  if (!p) return null;
  return { principalId, kind: p.kind, email: p.email, token: isToken(p.kind), memberships: await membershipsOf(db, principalId) };
}

export function membershipIn(ctx: AccessContext, orgId: string | null): OrgMembership | null {
  if (!orgId) return null;
  return ctx.memberships.find((m) => m.orgId === orgId) ?? null;
}

/**
 * A confined token acts only within its grants: every OAuth access token
 * (whatever its role, it acts on the catalogs a person consented to), and an
 * agent that is not an admin of the organisation (its role capped by its
 * makers') or belongs to none. A person, or an admin-role agent, is
 * unconfined. require.ts refuses what reaches past the grants.
 */
export function isConfinedToken(ctx: AccessContext, orgId: string | null): boolean {
  if (!ctx.token) return false;
  if (ctx.kind === 'mcp') return true;
  return membershipIn(ctx, orgId)?.role !== 'admin';
}

/** Device approval, consent, terms and password changes are a person's act (Authentication 6). */
export function requireHuman(ctx: AccessContext, what: string): void {
  if (ctx.kind !== 'human') throw forbidden('forbidden', `${what} is a person's act; a token cannot do it`);
}
