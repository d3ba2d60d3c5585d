import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { conflict, notFound, writeAudit } from '@floe/http';
import type { AccessContext } from '../access/context';
import { resolveWarehouse } from '../resolve';
import { membershipsOf } from '../store/memberships';
import { firstProjectOf, insertOrganizationWithAdmin, liveWarehouseNamed, projectById } from '../store/organizations';
import { createProject, type ProjectDeps } from './projects';
import { createWarehouse, type CreateWarehouseDeps } from './warehouse-create';
import { handleCandidates, handleFrom } from './handles';
import { activateOrganization, freeHandle } from './organizations';

// Onboarding: make sure a person has an organisation, a project and a catalog
// named `lake`, creating only what is missing (so it is idempotent). Shared by
// the one-call sign-up and POST /v1/onboard.

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

export async function onboard(d: OnboardDeps, req: Request, ctx: AccessContext, input: OnboardInput): Promise<Onboarded> {
  const created = { organization: false, project: false, warehouse: false };
  let membership = input.orgId
    ? ctx.memberships.find((m) => m.orgId === input.orgId || m.handle === input.orgId)
    : ctx.memberships[0];
  if (input.orgId && !membership) {
    throw notFound('org_not_found', `no organisation ${input.orgId} that you belong to`);
  }
  if (!membership && input.pendingOrgId && (await activateOrganization(d.prisma, input.pendingOrgId, ctx.principalId))) {
    await writeAudit(d.db, req, { action: 'org.activate', orgId: input.pendingOrgId, targetType: 'org', targetId: input.pendingOrgId, data: {} });
    created.organization = true;
    ctx = { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) };
    membership = ctx.memberships.find((m) => m.orgId === input.pendingOrgId);
  }
  if (!membership) {
    const name = input.organizationName ?? input.projectName ?? (ctx.email ? ctx.email.split('@')[0] : 'My team');
    const org = await createOrganization(d, ctx.principalId, name, input.handle);
    await writeAudit(d.db, req, { action: 'org.create', orgId: org.id, targetType: 'org', targetId: org.id, data: { name: org.name, handle: org.handle } });
    created.organization = true;
    ctx = { ...ctx, memberships: await membershipsOf(d.prisma, ctx.principalId) };
    membership = ctx.memberships.find((m) => m.orgId === org.id)!;
  }

  let project = await firstProjectOf(d.prisma, membership.orgId);
  if (!project) {
    project = await createProject(d, ctx, { name: (input.projectName ?? membership.name).slice(0, 63), orgId: membership.orgId });
    await writeAudit(d.db, req, { action: 'project.create', orgId: membership.orgId, targetType: 'project', targetId: project.id, data: { name: project.name } });
    created.project = true;
  }
  const projectId = project.id;

  const lakeRow = await liveWarehouseNamed(d.prisma, membership.orgId, FIRST_CATALOG);
  let warehouseId = lakeRow?.id;
  if (!lakeRow) {
    const lake = await createWarehouse(d, ctx, project, { name: FIRST_CATALOG, formatVersion: 2, requestId: req.requestId });
    await writeAudit(d.db, req, {
      action: 'warehouse.create', orgId: membership.orgId, targetType: 'warehouse', targetId: lake.warehouse.id,
      data: { name: FIRST_CATALOG, project_id: projectId, status: lake.status, bucket: lake.warehouse.tableBucket },
    });
    warehouseId = lake.warehouse.id;
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

/** A new active organisation with the person as its admin; the handle is the asked one (409 handle_taken) or derived and made unique. */
export async function createOrganization(d: Pick<OnboardDeps, 'prisma'>, principalId: string, name: string, asked?: string): Promise<{ id: string; name: string; handle: string }> {
  const id = `org_${randomBytes(12).toString('hex')}`;
  const candidates = asked ? [asked] : handleCandidates(handleFrom(name));
  for (const handle of candidates) {
    if (await insertOrganizationWithAdmin(d.prisma, { id, name, handle, createdBy: principalId })) return { id, name, handle };
  }
  const base = asked ?? handleFrom(name);
  throw conflict('handle_taken', `the handle ${base} is taken`, { field: 'handle', suggestion: await freeHandle(d.prisma, base) });
}
