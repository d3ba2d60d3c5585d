import type { Express } from 'express';
import { z } from 'zod';
import { badRequest, idempotent, parse, route } from '@floe/http';
import { createProject, listProjects, orgForCreate } from '@floe/catalogs';
import type { ControlPlaneDeps } from '../deps';
import { projectListRow, projectView } from '../responses';

// Spec: Projects. Placement (provider, region) is fixed at creation and only
// the deployment's own is offered.

const CreateProject = z.object({
  name: z.string().trim().min(1).max(63).regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, 'letters, digits, space, _ . - and starting with a letter or digit'),
  provider: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  org_id: z.string().min(1).optional(),
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
      const project = await createProject(d, req, ctx, { name: body.name, orgId });
      res.status(201).json(projectView(project));
    }],
    get: [...d.authed, async (req, res) => {
      const projects = await listProjects(d, req.access!);
      res.json({ projects: projects.map(projectListRow), count: projects.length });
    }],
  });
}
