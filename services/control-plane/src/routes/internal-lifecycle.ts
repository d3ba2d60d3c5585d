import type { Express } from 'express';
import { requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { flag } from '../domain/blobs/blob-keys';
import { auditLifecycle } from '../domain/blobs/lifecycle-audit';

// Spec: GET /internal/lifecycle-audit (bootstrap secret): no table bucket
// carries a lifecycle rule or a lifecycle policy statement;
// `?include_blobs=true` adds the blob buckets' rules.

export function mountInternalLifecycle(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/lifecycle-audit', {
    get: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      res.json(await auditLifecycle(d, flag(req.query.include_blobs, 'include_blobs')));
    }],
  });
}
