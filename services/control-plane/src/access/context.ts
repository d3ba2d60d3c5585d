import type { RequestHandler } from 'express';
import { scopesAllowWrites } from '@floe/auth';
import type { Db } from '@floe/db';
import { forbidden } from '@floe/http';
import { activePrincipal, membershipsOf, type MembershipRecord } from '../store/memberships';
import { isToken, type PrincipalKind } from './levels';

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
    req.access = { principalId: c.principalId, kind: c.kind, email: c.email, token: isToken(c.kind), readOnly, memberships: await membershipsOf(db, c.principalId) };
    next();
  };
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
