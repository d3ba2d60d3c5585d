import type { Express } from 'express';
import { z } from 'zod';
import { parse, requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { deviceCatalogs } from '../domain/device-catalogs';

// The internal route identity calls while a person reads or decides a device
// login: levels and catalogs are the control plane's. Bootstrap secret only;
// the public gateway never forwards /internal.

const Level = z.enum(['read', 'write']);

const DeviceCatalogs = z.object({
  principal_id: z.string().min(1).max(200),
  org_id: z.string().min(1).max(200).optional(),
  requested: z.array(z.object({ ref: z.string().min(1).max(200), level: Level })).max(100).default([]),
  requested_level: Level.default('write'),
  ensure_catalog: z.boolean().default(false),
  decision: z.enum(['device_login', 'oauth_consent']).optional(),
});

export function mountInternalDevice(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/device/catalogs', {
    post: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const b = parse(DeviceCatalogs, req.body);
      res.json(await deviceCatalogs(d, req, {
        principalId: b.principal_id, orgId: b.org_id, requested: b.requested, requestedLevel: b.requested_level, ensureCatalog: b.ensure_catalog, decision: b.decision,
      }));
    }],
  });
}
