import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { parse, requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { ENGINES, isEngine, type Engine } from '../domain/recipes';
import { onboardVerifiedPerson } from '../domain/signup';

// The internal route identity calls as a verified sign-up finishes: the
// person's organisation, a project and the `lake` catalog (making a catalog
// needs the catalogs aggregate's storage steps, still the control plane's).
// Bootstrap secret only; the public gateway never forwards /internal.

const Onboard = z.object({
  principal_id: z.string().min(1),
  email: z.string().email(),
  workspace: z.string().trim().min(1).max(63),
  pending_org_id: z.string().min(1).nullable().default(null),
  engine: z.string().default('duckdb').refine(isEngine, { message: `one of ${ENGINES.join(', ')}` }),
});

export function mountInternalAccounts(app: Express, d: ControlPlaneDeps): void {
  const secret: RequestHandler = requireBootstrapSecret(d.config.bootstrapSecret);

  route(app, '/internal/accounts/onboard', {
    post: [secret, async (req, res) => {
      const body = parse(Onboard, req.body);
      const { done, connection } = await onboardVerifiedPerson(d, req, {
        principalId: body.principal_id, email: body.email, workspace: body.workspace, pendingOrgId: body.pending_org_id, engine: body.engine as Engine,
      });
      res.json({
        organization: { org_id: done.org.org_id, name: done.org.name, handle: done.org.handle, role: done.org.role, joined_via: done.org.joined_via },
        project_id: done.projectId,
        warehouse_id: done.warehouseId,
        created: done.created,
        connection,
      });
    }],
  });
}
