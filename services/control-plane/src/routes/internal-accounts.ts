import type { Express, RequestHandler } from 'express';
import { z } from 'zod';
import { releaseOrganization, removeFromOrganizations, reserveOrganization } from '@floe/accounts';
import { parse, requireBootstrapSecret, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { ENGINES, isEngine, type Engine } from '../domain/recipes';
import { onboardVerifiedPerson } from '../domain/signup';

// Internal routes identity calls while it signs a person up: the control
// plane makes what it owns (organisations, projects, the `lake` catalog).
// Bootstrap secret only; the public gateway never forwards /internal.

const Reserve = z.object({
  principal_id: z.string().min(1),
  name: z.string().trim().min(1).max(100),
  handle: z.string().trim().toLowerCase().min(1).max(63).optional(),
  // Who asked (the sign-up's caller address) and for how long (the life of what was mailed): the reservation cap and its lapse.
  client_address: z.string().min(1).max(100),
  hold_seconds: z.number().int().min(1).max(30 * 86_400),
});

const Release = z.object({ principal_id: z.string().min(1), org_id: z.string().min(1) });

const Onboard = z.object({
  principal_id: z.string().min(1),
  email: z.string().email(),
  workspace: z.string().trim().min(1).max(63),
  pending_org_id: z.string().min(1).nullable().default(null),
  engine: z.string().default('duckdb').refine(isEngine, { message: `one of ${ENGINES.join(', ')}` }),
});

export function mountInternalAccounts(app: Express, d: ControlPlaneDeps): void {
  const secret: RequestHandler = requireBootstrapSecret(d.config.bootstrapSecret);

  route(app, '/internal/orgs/reserve', {
    post: [secret, async (req, res) => {
      const body = parse(Reserve, req.body);
      const org = await reserveOrganization(d.prisma, {
        name: body.name, handle: body.handle, principalId: body.principal_id, clientAddress: body.client_address, holdSeconds: body.hold_seconds,
      }, d.config.pendingHandlesPerCaller);
      if (org.created) {
        await writeAudit(d.db, req, {
          action: 'org.reserve', actorId: null, actorKind: null, orgId: org.org_id, targetType: 'org', targetId: org.org_id,
          data: { name: org.name, handle: org.handle, via: 'signup', client_address: body.client_address, ...(org.reclaimed ? { reclaimed_from: org.reclaimed } : {}) },
        });
      }
      res.status(201).json(org);
    }],
  });

  route(app, '/internal/orgs/release', {
    post: [secret, async (req, res) => {
      const body = parse(Release, req.body);
      res.json({ org_id: body.org_id, released: await releaseOrganization(d.prisma, body.org_id, body.principal_id) });
    }],
  });

  route(app, '/internal/accounts/leave', {
    post: [secret, async (req, res) => {
      const body = parse(z.object({ principal_id: z.string().min(1) }), req.body);
      res.json(await removeFromOrganizations(d.prisma, body.principal_id));
    }],
  });

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
