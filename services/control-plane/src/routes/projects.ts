import type { Express } from 'express';
import { z } from 'zod';
import { badRequest, idempotent, parse, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { createProject, orgForCreate } from '../domain/projects';
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
