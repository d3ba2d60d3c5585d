import type { Express } from 'express';
import type { ControlPlaneDeps } from '../deps';
import { usageOf } from '../domain/usage/usage';

// Spec: Usage and audit — GET /v1/usage (the rules are in domain/usage.ts).

export function mountUsage(app: Express, d: ControlPlaneDeps): void {
  app.get('/v1/usage', ...d.authed, async (req, res) => {
    res.json(await usageOf(d.prisma, req.access!, req.query));
  });
}
