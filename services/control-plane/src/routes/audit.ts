import type { Express } from 'express';
import type { ControlPlaneDeps } from '../deps';
import { readAudit, type AuditQuery } from '../domain/operator/audit-query';
import { auditEventRow } from '../responses';

// Spec: GET /v1/audit (who sees what: domain/audit-query.ts).

export function mountAudit(app: Express, d: ControlPlaneDeps): void {
  app.get('/v1/audit', ...d.authed, async (req, res) => {
    const { events, since, limit, orgId, scope, adminOf } = await readAudit(d.prisma, req.access!, req.query as AuditQuery);
    res.json({
      events: events.map(auditEventRow), count: events.length, since: since?.toISOString() ?? null, limit, org_id: orgId, scope,
      ...(adminOf.length ? {
        admin_of: adminOf,
        note: `Your own events. As an admin you can read your organisation's too: ?org_id=${adminOf[0].org_id}.`,
      } : {}),
    });
  });
}
