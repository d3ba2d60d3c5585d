import type { RequestHandler } from 'express';
import { scopesAllowWrites } from '@floe/auth';
import type { Db } from '@floe/db';
import { forbidden } from '@floe/http';
import { activePrincipal, membershipsOf, type MembershipRecord } from '../store/memberships';
import { grantLevelsOf } from '../store/grants';
import { isToken, type Level, type PrincipalKind } from './levels';

// Who the caller is beyond its credential: the organisations it belongs to
// and its role in each. Loaded once per request, after authentication.

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
   * An OAuth access token acts for the person who consented: nothing it holds
   * goes past what that person holds now (their role in each organisation,
   * their level on each catalog). A person demoted, or whose read on a
   * catalog was revoked, takes that from their tool hosts at once.
   */
  actingFor?: { principalId: string; memberships: OrgMembership[]; grants: Map<string, Level> };
}

declare global {
  namespace Express {
    interface Request {
      access?: AccessContext;
    }
  }
}

const READS = new Set(['GET', 'HEAD']);

/** Runs after packages/auth's requireCaller(); sets req.access. */
export function loadAccess(db: Db): RequestHandler {
  return async (req, _res, next) => {
    const c = req.caller!;
    const readOnly = c.oauth !== undefined && !scopesAllowWrites(c.oauth.scopes);
    // A read-scoped OAuth token changes nothing: its levels are capped at read (levels.ts) and every other change refused here,
    // so an admin's token record consented for reading cannot delete or publish either.
    if (readOnly && !READS.has(req.method)) {
      throw forbidden('insufficient_scope', 'this access token was consented for reading (catalogs:read); authorize again with catalogs:write to change anything');
    }
    const memberships = await membershipsOf(db, c.principalId);
    const actingFor = c.oauth ? await personOf(db, c.oauth.personId) : undefined;
    req.access = {
      principalId: c.principalId, kind: c.kind, email: c.email, token: isToken(c.kind), readOnly,
      memberships: actingFor ? memberships.map((m) => cappedByPerson(m, actingFor.memberships)) : memberships,
      actingFor,
    };
    next();
  };
}

async function personOf(db: Db, personId: string): Promise<NonNullable<AccessContext['actingFor']>> {
  const [memberships, grants] = await Promise.all([membershipsOf(db, personId), grantLevelsOf(db, personId)]);
  return { principalId: personId, memberships, grants };
}

/** A token record's role in an organisation, never above its person's there (an admin record of a person since demoted acts as a member). */
function cappedByPerson(m: OrgMembership, person: OrgMembership[]): OrgMembership {
  const theirs = person.find((p) => p.orgId === m.orgId);
  return m.role === 'admin' && theirs?.role !== 'admin' ? { ...m, role: 'member' } : m;
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

/** Device approval, consent, terms and password changes are a person's act (Authentication 6). */
export function requireHuman(ctx: AccessContext, what: string): void {
  if (ctx.kind !== 'human') throw forbidden('forbidden', `${what} is a person's act; a token cannot do it`);
}
