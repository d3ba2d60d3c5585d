import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { type AccessContext, requireUnconfined, membershipsOf, insertOrganizationWithAdmin, handleCandidates, handleFrom, activateOrganization, freeHandle, joinByDomain, joinByInvitation } from '@floe/accounts';
import { SessionLockTimeout, withSessionLock } from '@floe/db/session-lock';
import { conflict, HttpError, notFound, writeAudit, writeAuditIn } from '@floe/http';
import { createWarehouse, type CreatedWarehouse, type CreateWarehouseDeps } from '../create/warehouse-create';
import { firstProjectOf, liveWarehouseNamed, projectById } from '../org-catalogs';
import type { ProjectRow } from '../project-records';
import { resolveWarehouse } from '../resolve';
import { createProject, type ProjectDeps } from './projects';

// Onboarding: make sure a person has an organisation, a project and a catalog
// named `lake`, creating only what is missing (so it is idempotent); a person
// an organisation already wants (an invitation, an open claimed domain) joins
// it instead and makes nothing. Shared by the verified and the one-call
// sign-up and POST /v1/onboard. An organisation's activation or
// creation is one transaction with its audit event; a project's and a
// catalog's events follow their acts (a catalog's creation provisions storage
// between its writes, so it is not one transaction).

export const FIRST_CATALOG = 'lake';

/** Creating a project and a catalog, and the audit log each creation is written to. */
export type OnboardDeps = ProjectDeps & CreateWarehouseDeps;

export interface OnboardInput {
  orgId?: string;
  organizationName?: string;
  handle?: string;
  /** The project's name when one has to be made (sign-up: the workspace). */
  projectName?: string;
  /** The pending organisation the person reserved at the start of a sign-up: activated rather than a new one made. */
  pendingOrgId?: string;
}

export interface Onboarded {
  org: { org_id: string; name: string; handle: string; role: 'admin' | 'member'; joined_via: string };
  /** Null only for a person who joined an organisation with no project or catalog yet. */
  projectId: string | null;
  warehouseId: string | null;
  created: { organization: boolean; project: boolean; warehouse: boolean };
  ctx: AccessContext;
}

/**
 * One person's onboardings run one at a time (a session lock on their id), so
 * concurrent ones make one organisation, project and catalog and the others
 * find them: every step below reads what exists before it makes anything.
 */
export async function onboard(d: OnboardDeps, req: Request, ctx: AccessContext, input: OnboardInput): Promise<Onboarded> {
  try {
    return await withSessionLock(d.db, `onboard:${ctx.principalId}`, () => onboardHeld(d, req, ctx, input));
  } catch (err) {
    if (err instanceof SessionLockTimeout) {
      throw new HttpError(409, 'creation_in_progress', 'another onboarding of yours is still making your organisation, project or catalog; retry in a few seconds', { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    throw err;
  }
}

async function onboardHeld(d: OnboardDeps, req: Request, ctx: AccessContext, input: OnboardInput): Promise<Onboarded> {
  const created = { organization: false, project: false, warehouse: false };
  // A person with no organisation when the request began may have one now: made by the onboarding that held the lock before.
  if (ctx.memberships.length === 0) ctx = { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) };
  let membership = input.orgId
    ? ctx.memberships.find((m) => m.orgId === input.orgId || m.handle === input.orgId)
    : ctx.memberships[0];
  if (input.orgId && !membership) {
    throw notFound('org_not_found', `no organisation ${input.orgId} that you belong to`);
  }
  // A confined token makes nothing (an organisation is only ever made for a person: a token has no organisation to act for).
  requireUnconfined(ctx, membership?.orgId ?? null, 'onboarding (it makes the organisation, project and catalog that are missing)');
  // A person in no organisation whom one already wants joins it and makes nothing of their own: an invitation to their
  // address places them with the invited role, else an address on a claimed open domain joins as a member.
  if (!membership && ctx.kind === 'human' && ctx.email) {
    const who = { principalId: ctx.principalId, email: ctx.email };
    const joined = (await joinByInvitation(d, req, who))?.orgId ?? await joinByDomain(d, req, who);
    if (joined) return joinedOnboarding(d, { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) }, joined);
  }
  if (!membership && input.pendingOrgId && (await activateOrganization(d, req, input.pendingOrgId, ctx.principalId))) {
    created.organization = true;
    ctx = { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) };
    membership = ctx.memberships.find((m) => m.orgId === input.pendingOrgId);
  }
  if (!membership) {
    const name = input.organizationName ?? input.projectName ?? (ctx.email ? ctx.email.split('@')[0] : 'My team');
    const org = await createOrganization(d, req, ctx.principalId, name, input.handle);
    created.organization = true;
    ctx = { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) };
    membership = ctx.memberships.find((m) => m.orgId === org.id)!;
  }

  const first = await firstOrNewProject(d, req, ctx, membership.orgId, input.projectName ?? membership.name);
  const project = first.project;
  created.project = first.created;
  const projectId = project.id;

  const lakeRow = await liveWarehouseNamed(d.prisma, membership.orgId, FIRST_CATALOG);
  let warehouseId = lakeRow?.id;
  if (!lakeRow) {
    warehouseId = (await createCatalogAudited(d, req, ctx, project, FIRST_CATALOG)).warehouse.id;
    created.warehouse = true;
  } else {
    // A `lake` left half-made by a storage outage is finished here.
    const w = await resolveWarehouse(d.prisma, ctx, lakeRow.id).catch(() => null);
    const lakeProject = !w && lakeRow.projectId ? await projectById(d.prisma, lakeRow.projectId) : null;
    if (lakeProject) await createWarehouse(d, ctx, lakeProject, { name: FIRST_CATALOG, formatVersion: 2, requestId: req.requestId });
  }
  return {
    org: { org_id: membership.orgId, name: membership.name, handle: membership.handle, role: membership.role, joined_via: membership.joinedVia },
    projectId, warehouseId: warehouseId!, created, ctx,
  };
}

/** A joiner's onboarding: what the organisation already has (its first project, its `lake`), nothing made. */
async function joinedOnboarding(d: OnboardDeps, ctx: AccessContext, orgId: string): Promise<Onboarded> {
  const m = ctx.memberships.find((x) => x.orgId === orgId)!;
  const project = await firstProjectOf(d.prisma, orgId);
  const lake = await liveWarehouseNamed(d.prisma, orgId, FIRST_CATALOG);
  return {
    org: { org_id: m.orgId, name: m.name, handle: m.handle, role: m.role, joined_via: m.joinedVia },
    projectId: project?.id ?? null, warehouseId: lake?.id ?? null, created: { organization: false, project: false, warehouse: false }, ctx,
  };
}

/** The organisation's oldest project (its default), or a new one named `name` (audited `project.create`) when it has none. */
export async function firstOrNewProject(
  d: OnboardDeps, req: Request, ctx: AccessContext, orgId: string, name: string,
): Promise<{ project: ProjectRow; created: boolean }> {
  const project = await firstProjectOf(d.prisma, orgId);
  if (project) return { project, created: false };
  const made = await createProject(d, req, ctx, { name: name.slice(0, 63), orgId });
  return { project: made, created: true };
}

/** A catalog of this name in the project, audited `warehouse.create` (the audit's actor is the request's caller). */
export async function createCatalogAudited(d: OnboardDeps, req: Request, ctx: AccessContext, project: ProjectRow, name: string): Promise<CreatedWarehouse> {
  const made = await createWarehouse(d, ctx, project, { name, formatVersion: 2, requestId: req.requestId });
  await writeAudit(d.db, req, {
    action: 'warehouse.create', orgId: project.orgId, targetType: 'warehouse', targetId: made.warehouse.id,
    data: { name, project_id: project.id, status: made.status, bucket: made.warehouse.tableBucket },
  });
  return made;
}

/**
 * A new active organisation with the person as its admin, audited `org.create`
 * in the same transaction; the handle is the asked one (409 handle_taken) or
 * derived and made unique.
 */
export async function createOrganization(
  d: Pick<OnboardDeps, 'prisma'>, req: Request | null, principalId: string, name: string, asked?: string,
): Promise<{ id: string; name: string; handle: string }> {
  const id = `org_${randomBytes(12).toString('hex')}`;
  const candidates = asked ? [asked] : handleCandidates(handleFrom(name));
  for (const handle of candidates) {
    const made = await insertOrganizationWithAdmin(d.prisma, { id, name, handle, createdBy: principalId }, (tx) => writeAuditIn(tx, req, {
      action: 'org.create', orgId: id, targetType: 'org', targetId: id, data: { name, handle },
    }));
    if (made) return { id, name, handle };
  }
  const base = asked ?? handleFrom(name);
  throw conflict('handle_taken', `the handle ${base} is taken`, { field: 'handle', suggestion: await freeHandle(d.prisma, base) });
}
