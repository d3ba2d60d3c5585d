import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { conflict, notFound, withTransaction, writeAudit } from '@floe/http';
import { membershipsOf, type AccessContext } from '../access/context';
import type { ControlPlaneDeps } from '../deps';
import { resolveWarehouse } from '../resolve';
import { createProject } from './projects';
import { createWarehouse } from './warehouse-create';
import { handleCandidates, handleFrom } from './handles';

// Onboarding: make sure a person has an organisation, a project and a catalog
// named `lake`, creating only what is missing (so it is idempotent). Shared by
// the one-call sign-up and POST /v1/onboard.

export const FIRST_CATALOG = 'lake';

export interface OnboardInput {
  orgId?: string;
  organizationName?: string;
  handle?: string;
  /** The project's name when one has to be made (sign-up: the workspace). */
  projectName?: string;
}

export interface Onboarded {
  org: { org_id: string; name: string; handle: string; role: 'admin' | 'member'; joined_via: string };
  projectId: string;
  warehouseId: string;
  created: { organization: boolean; project: boolean; warehouse: boolean };
  ctx: AccessContext;
}

export async function onboard(d: ControlPlaneDeps, req: Request, ctx: AccessContext, input: OnboardInput): Promise<Onboarded> {
  const created = { organization: false, project: false, warehouse: false };
  let membership = input.orgId
    ? ctx.memberships.find((m) => m.orgId === input.orgId || m.handle === input.orgId)
    : ctx.memberships[0];
  if (input.orgId && !membership) {
    throw notFound('org_not_found', `no organisation ${input.orgId} that you belong to`);
  }
  if (!membership) {
    const name = input.organizationName ?? input.projectName ?? (ctx.email ? ctx.email.split('@')[0] : 'My team');
    const org = await createOrganization(d, ctx.principalId, name, input.handle);
    await writeAudit(d.db, req, { action: 'org.create', orgId: org.id, targetType: 'org', targetId: org.id, data: { name: org.name, handle: org.handle } });
    created.organization = true;
    ctx = { ...ctx, memberships: await membershipsOf(d.db, ctx.principalId) };
    membership = ctx.memberships.find((m) => m.orgId === org.id)!;
  }

  const { rows: projects } = await d.db.query<{ id: string }>(`SELECT id FROM projects WHERE org_id = $1 ORDER BY created_at, id LIMIT 1`, [membership.orgId]);
  let projectId = projects[0]?.id;
  if (!projectId) {
    const project = await createProject(d, ctx, { name: (input.projectName ?? membership.name).slice(0, 63), orgId: membership.orgId });
    await writeAudit(d.db, req, { action: 'project.create', orgId: membership.orgId, targetType: 'project', targetId: project.id, data: { name: project.name } });
    projectId = project.id;
    created.project = true;
  }

  const { rows: lakes } = await d.db.query<{ id: string }>(
    `SELECT id FROM warehouses WHERE org_id = $1 AND name = $2 AND status IN ('creating', 'provisioning', 'ready')`, [membership.orgId, FIRST_CATALOG]);
  let warehouseId = lakes[0]?.id;
  if (!warehouseId) {
    const { rows } = await d.db.query(`SELECT id, name, provider, region, org_id AS "orgId", owner_id AS "ownerId", created_at AS "createdAt" FROM projects WHERE id = $1`, [projectId]);
    const lake = await createWarehouse(d, ctx, rows[0], { name: FIRST_CATALOG, formatVersion: 2, requestId: req.requestId });
    await writeAudit(d.db, req, {
      action: 'warehouse.create', orgId: membership.orgId, targetType: 'warehouse', targetId: lake.warehouse.id,
      data: { name: FIRST_CATALOG, project_id: projectId, status: lake.status, bucket: lake.warehouse.tableBucket },
    });
    warehouseId = lake.warehouse.id;
    created.warehouse = true;
  } else {
    // A `lake` left half-made by a storage outage is finished here.
    const w = await resolveWarehouse(d.db, ctx, warehouseId).catch(() => null);
    if (!w) {
      const { rows } = await d.db.query(`SELECT id, name, provider, region, org_id AS "orgId", owner_id AS "ownerId", created_at AS "createdAt" FROM projects WHERE id = (SELECT project_id FROM warehouses WHERE id = $1)`, [warehouseId]);
      await createWarehouse(d, ctx, rows[0], { name: FIRST_CATALOG, formatVersion: 2, requestId: req.requestId });
    }
  }
  return {
    org: { org_id: membership.orgId, name: membership.name, handle: membership.handle, role: membership.role, joined_via: membership.joinedVia },
    projectId, warehouseId, created, ctx,
  };
}

/** A new active organisation with the person as its admin; the handle is the asked one (409 handle_taken) or derived and made unique. */
export async function createOrganization(d: ControlPlaneDeps, principalId: string, name: string, asked?: string): Promise<{ id: string; name: string; handle: string }> {
  const id = `org_${randomBytes(12).toString('hex')}`;
  const candidates = asked ? [asked] : handleCandidates(handleFrom(name));
  for (const handle of candidates) {
    const made = await withTransaction(d.db, async (client) => {
      const inserted = await client.query(
        `INSERT INTO organizations (id, name, handle, status, created_by) VALUES ($1, $2, $3, 'active', $4) ON CONFLICT (handle) DO NOTHING RETURNING id`,
        [id, name, handle, principalId],
      );
      if (!inserted.rowCount) return false;
      await client.query(`INSERT INTO memberships (org_id, principal_id, role, joined_via, created_by) VALUES ($1, $2, 'admin', 'creator', $2)`, [id, principalId]);
      return true;
    });
    if (made) return { id, name, handle };
  }
  const base = asked ?? handleFrom(name);
  throw conflict('handle_taken', `the handle ${base} is taken`, { field: 'handle', suggestion: await freeHandle(d, base) });
}

async function freeHandle(d: ControlPlaneDeps, base: string): Promise<string> {
  const candidates = handleCandidates(handleFrom(base)).slice(1);
  const { rows } = await d.db.query<{ handle: string }>(`SELECT handle FROM organizations WHERE handle = ANY($1::text[])`, [candidates]);
  const taken = new Set(rows.map((r) => r.handle));
  return candidates.find((c) => !taken.has(c)) ?? `${handleFrom(base).slice(0, 30)}-${randomBytes(3).toString('hex')}`;
}

