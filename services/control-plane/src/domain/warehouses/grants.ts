import { type AccessContext, accessOf, rank, type Access, type Level, forbiddenNamingGranters, isWarehouseAdmin, deleteGrant, orgPrincipals, upsertGrant, type OrgPrincipal } from '@floe/accounts';
import type { Request } from 'express';
import type { VisibleWarehouse, WarehouseRecord } from '@floe/catalogs';
import type { Db, PrismaClient } from '@floe/db';
import { HttpError, conflict, notFound, writeAuditIn } from '@floe/http';

// Spec: Grants. The grant rows of a warehouse as the spec lists them: every
// principal of its organisation with the level it holds and why, implicit
// grants included. Admins grant anything; a person holding write grants up to
// their own level; implicit grants (admin, creator) cannot be set or revoked.
// A grant or revocation is one transaction: what the target held is read, the
// row written and the audit event (`warehouse.grant`, `warehouse.grant_revoke`)
// appended together, so no grant stands without its event.

export type { OrgPrincipal };

export function accessOfPrincipal(p: OrgPrincipal, w: WarehouseRecord): Access {
  return accessOf({
    principalId: p.principalId,
    kind: p.kind,
    membership: w.orgId ? { role: p.role, confined: p.confined } : null,
    ownsProject: !w.orgId && w.projectOwner === p.principalId,
    createdBy: w.createdBy,
    grant: p.grant ? { level: p.grant.level } : null,
  });
}

export function grantRow(p: OrgPrincipal, a: Access) {
  const explicit = a.via === 'grant' && p.grant;
  return {
    principal_id: p.principalId,
    kind: p.kind,
    display: p.display,
    level: a.level,
    via: a.via,
    granted_by: explicit ? p.grant!.grantedBy : null,
    granted_at: (explicit ? p.grant!.grantedAt : p.joinedAt)?.toISOString?.() ?? null,
  };
}

/** GET …/grants: who holds what; a member token without a grant holds nothing here, a revoked membership read is listed as `none`. */
export async function listGrants(db: Db, w: VisibleWarehouse) {
  return (await orgPrincipals(db, w))
    .map((p) => ({ p, a: accessOfPrincipal(p, w) }))
    .filter(({ p, a }) => a.visible || p.grant !== null)
    .map(({ p, a }) => grantRow(p, a));
}

/** PUT …/grants/{principal_id}: the target and the level it held before; audited `warehouse.grant` in the grant's transaction. */
export async function putGrant(
  d: { prisma: PrismaClient }, req: Request | null, ctx: AccessContext, w: VisibleWarehouse, principalId: string, level: 'read' | 'write',
): Promise<{ target: OrgPrincipal; before: Access }> {
  return d.prisma.$transaction(async (tx) => {
    await requireGranter(tx, ctx, w, level);
    const target = await targetOf(tx, w, principalId);
    if (!target.active) throw conflict('principal_inactive', `${target.display ?? target.principalId} is suspended or revoked and takes no grant`, { principal_id: target.principalId });
    const before = accessOfPrincipal(target, w);
    if (before.via === 'admin' || (before.via === 'creator' && rank(level) <= rank(before.level))) {
      throw implicitGrant(target, before.via);
    }
    await upsertGrant(tx, { warehouseId: w.id, principalId: target.principalId, level, grantedBy: ctx.principalId });
    await writeAuditIn(tx, req, {
      action: 'warehouse.grant', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
      data: { principal_id: target.principalId, level, previous: { level: before.level, via: before.via } },
    });
    return { target, before };
  });
}

/** DELETE …/grants/{principal_id}: an explicit grant goes; a member's implicit read is recorded as `none`; audited `warehouse.grant_revoke` in the same transaction. */
export async function revokeGrant(
  d: { prisma: PrismaClient }, req: Request | null, ctx: AccessContext, w: VisibleWarehouse, principalId: string,
): Promise<{ target: OrgPrincipal; before: Access; after: Access }> {
  return d.prisma.$transaction(async (tx) => {
    const target = await targetOf(tx, w, principalId, 'grant_not_found');
    const before = accessOfPrincipal(target, w);
    const admin = isWarehouseAdmin(ctx, w);
    const explicit = target.grant && target.grant.level !== 'none' ? target.grant : null;
    if (explicit) {
      if (!admin && explicit.grantedBy !== ctx.principalId) {
        throw await forbiddenNamingGranters(tx, w, 'only an admin or the person who made a grant can revoke it');
      }
      await deleteGrant(tx, w.id, target.principalId);
    } else if (before.via === 'admin' || before.via === 'creator' || before.via === 'agent') {
      throw implicitGrant(target, before.via);
    } else if (before.via === 'membership') {
      if (!admin) throw await forbiddenNamingGranters(tx, w, 'only an admin can revoke a member\'s implicit read');
      await upsertGrant(tx, { warehouseId: w.id, principalId: target.principalId, level: 'none', grantedBy: ctx.principalId });
    } else {
      throw notFound('grant_not_found', `${target.principalId} holds no grant on ${w.name}`);
    }
    const [fresh] = await orgPrincipals(tx, w, target.principalId);
    const after = accessOfPrincipal(fresh, w);
    await writeAuditIn(tx, req, {
      action: 'warehouse.grant_revoke', orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
      data: { principal_id: target.principalId, revoked: { level: before.level, via: before.via }, level: after.level },
    });
    return { target, before, after };
  });
}

/** Grant: an admin, or a person holding write, granting at most their own level (Authentication 6). */
async function requireGranter(db: Db, ctx: AccessContext, w: VisibleWarehouse, level: Level): Promise<void> {
  if (isWarehouseAdmin(ctx, w)) return;
  const mayGrant = ctx.kind === 'human' && w.access.level === 'write';
  if (!mayGrant || rank(level) > rank(w.access.level)) {
    throw await forbiddenNamingGranters(db, w, ctx.kind === 'human'
      ? `granting ${level} needs admin, or write on ${w.name} yourself; you hold ${w.access.level}`
      : 'a token grants only as an admin of the organisation', { level: w.access.level, needed: level });
  }
}

async function targetOf(db: Db, w: VisibleWarehouse, principalId: string, code: 'principal_not_found' | 'grant_not_found' = 'principal_not_found'): Promise<OrgPrincipal> {
  const [p] = await orgPrincipals(db, w, principalId);
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
