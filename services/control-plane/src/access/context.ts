import type { RequestHandler } from 'express';
import { forbidden, type SqlClient } from '@floe/http';
import { isToken, type PrincipalKind } from './levels';

// Who the caller is beyond its credential: the organisations it belongs to
// and its role in each. Loaded once per request, after authentication.

export interface OrgMembership {
  orgId: string;
  name: string;
  handle: string;
  role: 'admin' | 'member';
  confined: boolean;
  joinedVia: string;
}

export interface AccessContext {
  principalId: string;
  kind: PrincipalKind;
  email: string | null;
  /** True for agent and mcp tokens: they see only what they were granted. */
  token: boolean;
  memberships: OrgMembership[];
}

declare global {
  namespace Express {
    interface Request {
      access?: AccessContext;
    }
  }
}

export async function membershipsOf(db: SqlClient, principalId: string): Promise<OrgMembership[]> {
  const { rows } = await db.query<{ org_id: string; name: string; handle: string; role: 'admin' | 'member'; confined: boolean; joined_via: string }>({
    name: 'cp_memberships_of',
    text: `SELECT m.org_id, o.name, o.handle, m.role, m.confined, m.joined_via
             FROM memberships m JOIN organizations o ON o.id = m.org_id
            WHERE m.principal_id = $1 AND o.status = 'active' ORDER BY m.created_at, m.org_id`,
    values: [principalId],
  });
  return rows.map((r) => ({ orgId: r.org_id, name: r.name, handle: r.handle, role: r.role, confined: r.confined, joinedVia: r.joined_via }));
}

/** Runs after packages/auth's requireCaller(); sets req.access. */
export function loadAccess(db: SqlClient): RequestHandler {
  return async (req, _res, next) => {
    const c = req.caller!;
    req.access = { principalId: c.principalId, kind: c.kind, email: c.email, token: isToken(c.kind), memberships: await membershipsOf(db, c.principalId) };
    next();
  };
}

export function membershipIn(ctx: AccessContext, orgId: string | null): OrgMembership | null {
  if (!orgId) return null;
  return ctx.memberships.find((m) => m.orgId === orgId) ?? null;
}

/** Device approval, consent, terms and password changes are a person's act (Authentication 6). */
export function requireHuman(ctx: AccessContext, what: string): void {
  if (ctx.kind !== 'human') throw forbidden('forbidden', `${what} is a person's act; a token cannot do it`);
}
