import type { Express } from 'express';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { badRequest, conflict, idempotent, limitExceeded, notFound, parse, route, withTransaction, writeAudit } from '@floe/http';
import type { AccessContext } from '../access/context';
import type { ControlPlaneDeps } from '../deps';
import { FREE_PLAN } from '../domain/plans';
import { reachableProjects, type ProjectRow } from '../resolve';
import { iso } from '../views';

// Spec: Projects. Placement (provider, region) is fixed at creation and only
// the deployment's own is offered.

const CreateProject = z.object({
  name: z.string().trim().min(1).max(63).regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, 'letters, digits, space, _ . - and starting with a letter or digit'),
  provider: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  org_id: z.string().min(1).optional(),
});

export const projectView = (p: ProjectRow) => ({
  project_id: p.id,
  name: p.name,
  provider: p.provider,
  region: p.region,
  placement_immutable: true,
  org_id: p.orgId,
  created_at: iso(p.createdAt),
});

/** The organisation a new project (or an onboarding) lands in: the named one, the only one, or none. */
export function orgForCreate(ctx: AccessContext, orgId: string | undefined): string | null {
  if (orgId !== undefined) {
    const m = ctx.memberships.find((x) => x.orgId === orgId || x.handle === orgId);
    if (!m) throw notFound('org_not_found', `no organisation ${JSON.stringify(orgId)} that you belong to`);
    return m.orgId;
  }
  if (ctx.memberships.length > 1) {
    throw badRequest('org_required', 'you belong to several organisations; name one with org_id', {
      available: ctx.memberships.map((m) => ({ org_id: m.orgId, name: m.name, handle: m.handle })),
    });
  }
  return ctx.memberships[0]?.orgId ?? null;
}

export function mountProjects(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/projects', {
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/projects'), async (req, res) => {
      const ctx = req.access!;
      const body = parse(CreateProject, req.body);
      const available = [{ provider: d.config.provider, region: d.config.region }];
      if ((body.provider ?? d.config.provider) !== d.config.provider || (body.region ?? d.config.region) !== d.config.region) {
        throw badRequest('unsupported_placement', `only ${d.config.provider}/${d.config.region} is offered on this deployment`, { available });
      }
      const orgId = orgForCreate(ctx, body.org_id);
      const project = await createProject(d, ctx, { name: body.name, orgId });
      await writeAudit(d.db, req, { action: 'project.create', orgId, targetType: 'project', targetId: project.id, data: { name: project.name } });
      res.status(201).json(projectView(project));
    }],
    get: [...d.authed, async (req, res) => {
      const projects = await reachableProjects(d.db, req.access!);
      res.json({ projects: projects.map(({ id, name, provider, region, orgId, createdAt }) => ({ project_id: id, name, provider, region, org_id: orgId, created_at: iso(createdAt) })), count: projects.length });
    }],
  });
}

/** Inserts a project unless the organisation (or owner) already has one of that name: 409 `already_exists`. */
export async function createProject(d: ControlPlaneDeps, ctx: AccessContext, p: { name: string; orgId: string | null }): Promise<ProjectRow> {
  return withTransaction(d.db, async (client) => {
    // One creator at a time per organisation (or owner), so the name check and the count hold.
    await client.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`projects:${p.orgId ?? ctx.principalId}`]);
    const scope = p.orgId ? `org_id = $1` : `org_id IS NULL AND owner_id = $1`;
    const { rows: existing } = await client.query<{ id: string; name: string }>(`SELECT id, name FROM projects WHERE ${scope}`, [p.orgId ?? ctx.principalId]);
    const same = existing.find((x) => x.name === p.name);
    if (same) throw conflict('already_exists', `a project named ${p.name} already exists`, { project_id: same.id });
    if (existing.length >= FREE_PLAN.projects) {
      throw limitExceeded(`at most ${FREE_PLAN.projects} projects`, { limit: 'projects', limit_value: FREE_PLAN.projects, current: existing.length });
    }
    const { rows } = await client.query<ProjectRow>(
      `INSERT INTO projects (id, name, provider, region, org_id, owner_id) VALUES ($1, $2, $3, $4, $5, $6)
       RETURNING id, name, provider, region, org_id AS "orgId", owner_id AS "ownerId", created_at AS "createdAt"`,
      [`prj_${randomBytes(12).toString('hex')}`, p.name, d.config.provider, d.config.region, p.orgId, ctx.principalId],
    );
    return rows[0];
  });
}
