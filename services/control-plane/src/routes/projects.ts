import type { Express } from 'express';
import { CreateProjectBody } from '@floe/api';
import { badRequest, idempotent, parse, route } from '@floe/http';
import { createProject, listProjects, orgForCreate } from '@floe/catalogs';
import type { ControlPlaneDeps } from '../deps';
import { projectListRow, projectView } from '../responses';

// Spec: Projects. Placement (provider, region) is fixed at creation and only
// the deployment's own is offered.

export function mountProjects(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/projects', {
    post: [...d.authed, idempotent(d.idempotency, 'POST /v1/projects'), async (req, res) => {
      const ctx = req.access!;
      const body = parse(CreateProjectBody, req.body);
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
