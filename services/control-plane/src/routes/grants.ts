import type { Express } from 'express';
import { z } from 'zod';
import { HttpError, conflict, notFound, parse, route, writeAudit } from '@floe/http';
import { membershipIn, type AccessContext } from '../access/context';
import { rank, type Level } from '../access/levels';
import { forbiddenNamingGranters } from '../access/require';
import type { ControlPlaneDeps } from '../deps';
import { accessOfPrincipal, grantRow, orgPrincipals, type OrgPrincipal } from '../domain/grants';
import { resolveWarehouse } from '../resolve';
import type { VisibleWarehouse } from '../store/warehouses';

// Spec: Grants. Admins grant anything; a person holding write grants up to
// their own level; implicit grants (admin, creator) cannot be set or revoked.

const PutGrant = z.object({ level: z.enum(['read', 'write']) });

export function mountGrants(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/warehouses/:warehouse_id/grants', {
    get: [...d.authed, async (req, res) => {
      const w = await resolveWarehouse(d.db, req.access!, String(req.params.warehouse_id));
      const rows = (await orgPrincipals(d.db, w))
        .map((p) => ({ p, a: accessOfPrincipal(p, w) }))
        // A member token without a grant holds nothing here; a revoked membership read is listed as `none`.
        .filter(({ p, a }) => a.visible || p.grant !== null)
        .map(({ p, a }) => grantRow(p, a));
      res.json(rows);
    }],
  });

  route(app, '/v1/warehouses/:warehouse_id/grants/:principal_id', {
    put: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      const body = parse(PutGrant, req.body);
      await requireGranter(d, ctx, w, body.level);
      const target = await targetOf(d, w, String(req.params.principal_id));
      const before = accessOfPrincipal(target, w);
      if (before.via === 'admin' || (before.via === 'creator' && rank(body.level) <= rank(before.level))) {
        throw implicitGrant(target, before.via);
      }
      await d.db.query(
        `INSERT INTO warehouse_grants (warehouse_id, principal_id, level, granted_by) VALUES ($1, $2, $3, $4)
         ON CONFLICT (warehouse_id, principal_id) DO UPDATE SET level = EXCLUDED.level, granted_by = EXCLUDED.granted_by, granted_at = now()`,
        [w.id, target.principalId, body.level, ctx.principalId]);
      await writeAudit(d.db, req, {
        action: 'warehouse.grant', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: { principal_id: target.principalId, level: body.level, previous: { level: before.level, via: before.via } },
      });
      res.json({ warehouse_id: w.id, principal_id: target.principalId, kind: target.kind, display: target.display, level: body.level, via: 'grant', granted_by: ctx.principalId });
    }],
    delete: [...d.authed, async (req, res) => {
      const ctx = req.access!;
      const w = await resolveWarehouse(d.db, ctx, String(req.params.warehouse_id));
      const target = await targetOf(d, w, String(req.params.principal_id), 'grant_not_found');
      const before = accessOfPrincipal(target, w);
      const admin = isAdmin(ctx, w);
      const explicit = target.grant && target.grant.level !== 'none' ? target.grant : null;
      if (explicit) {
        if (!admin && explicit.grantedBy !== ctx.principalId) {
          throw await forbiddenNamingGranters(d.db, w, 'only an admin or the person who made a grant can revoke it');
        }
        await d.db.query(`DELETE FROM warehouse_grants WHERE warehouse_id = $1 AND principal_id = $2`, [w.id, target.principalId]);
      } else if (before.via === 'admin' || before.via === 'creator' || before.via === 'agent') {
        throw implicitGrant(target, before.via);
      } else if (before.via === 'membership') {
        // Revoking a member's implicit read records level `none` for this warehouse.
        if (!admin) throw await forbiddenNamingGranters(d.db, w, 'only an admin can revoke a member\'s implicit read');
        await d.db.query(
          `INSERT INTO warehouse_grants (warehouse_id, principal_id, level, granted_by) VALUES ($1, $2, 'none', $3)
           ON CONFLICT (warehouse_id, principal_id) DO UPDATE SET level = 'none', granted_by = EXCLUDED.granted_by, granted_at = now()`,
          [w.id, target.principalId, ctx.principalId]);
      } else {
        throw notFound('grant_not_found', `${target.principalId} holds no grant on ${w.name}`);
      }
      const [fresh] = await orgPrincipals(d.db, w, target.principalId);
      const after = accessOfPrincipal(fresh, w);
      await writeAudit(d.db, req, {
        action: 'warehouse.grant_revoke', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: { principal_id: target.principalId, revoked: { level: before.level, via: before.via }, level: after.level },
      });
      res.json({
        warehouse_id: w.id, principal_id: target.principalId, kind: target.kind, display: target.display,
        revoked: { level: before.level, via: before.via }, level: after.level, via: after.via,
      });
    }],
  });
}

function isAdmin(ctx: AccessContext, w: VisibleWarehouse): boolean {
  const m = membershipIn(ctx, w.orgId);
  return m ? m.role === 'admin' : w.orgId === null && w.projectOwner === ctx.principalId;
}

/** Grant: an admin, or a person holding write, granting at most their own level (Authentication 6). */
async function requireGranter(d: ControlPlaneDeps, ctx: AccessContext, w: VisibleWarehouse, level: Level): Promise<void> {
  if (isAdmin(ctx, w)) return;
  const mayGrant = ctx.kind === 'human' && w.access.level === 'write';
  if (!mayGrant || rank(level) > rank(w.access.level)) {
    throw await forbiddenNamingGranters(d.db, w, ctx.kind === 'human'
      ? `granting ${level} needs admin, or write on ${w.name} yourself; you hold ${w.access.level}`
      : 'a token grants only as an admin of the organisation', { level: w.access.level, needed: level });
  }
}

async function targetOf(d: ControlPlaneDeps, w: VisibleWarehouse, principalId: string, code: 'principal_not_found' | 'grant_not_found' = 'principal_not_found'): Promise<OrgPrincipal> {
  const [p] = await orgPrincipals(d.db, w, principalId);
  if (!p || (!w.orgId && p.principalId !== principalId)) {
    throw notFound(code, code === 'grant_not_found'
      ? `${principalId} holds no grant on ${w.name}`
      : `no principal ${principalId} in this catalog's organisation`);
  }
  return p;
}

function implicitGrant(p: OrgPrincipal, via: string | null): HttpError {
  return conflict('implicit_grant', `${p.display ?? p.principalId} holds this catalog implicitly (via ${via}); change the role instead`, {
    via, remedy: via === 'admin' ? 'PATCH /v1/orgs/{org_id}/members/{member_id} with {"role": "member"}' : 'the creator keeps write on what they created',
  });
}
