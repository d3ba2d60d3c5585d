import type { Express } from 'express';
import { parse, requireBootstrapSecret, route } from '@floe/http';
import { UsageReport } from '@floe/queues';
import type { ControlPlaneDeps } from '../deps';
import { recordUsageReport } from '../domain/usage/usage-report';

// Spec: POST /internal/usage (the hourly footprint report per warehouse;
// recomputes the scope's quota). Bootstrap secret only; the public gateway
// never forwards /internal. The metering worker is the caller.

export function mountInternalUsage(app: Express, d: ControlPlaneDeps): void {
  route(app, '/internal/usage', {
    post: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      res.json(await recordUsageReport(d, parse(UsageReport, req.body)));
    }],
  });
}
