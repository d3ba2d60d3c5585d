import type { Express } from 'express';
import type { ControlPlaneDeps } from '../deps';
import { readAudit, type AuditQuery } from '../domain/operator/audit-query';
import { auditEventRow } from '../responses';

// Spec: GET /v1/audit (who sees what: domain/audit-query.ts).

export function mountAudit(app: Express, d: ControlPlaneDeps): void {
  app.get('/v1/audit', ...d.authed, async (req, res) => {
    const { events, since, limit, orgId } = await readAudit(d.prisma, req.access!, req.query as AuditQuery);
    res.json({ events: events.map(auditEventRow), count: events.length, since: since?.toISOString() ?? null, limit, org_id: orgId });
  });
}
