import type { Express } from 'express';
import { notFound } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { actionPattern, parseLimit, parseSince } from '../domain/audit-query';

// Spec: GET /v1/audit. Without org_id: the caller's own events. With org_id:
// an admin sees the organisation's events plus their own; a member only their own.

export function mountAudit(app: Express, d: ControlPlaneDeps): void {
  app.get('/v1/audit', ...d.authed, async (req, res) => {
    const ctx = req.access!;
    const q = req.query as Record<string, string | undefined>;
    const since = parseSince(q.since);
    const action = actionPattern(q.action);
    const limit = parseLimit(q.limit);
    let orgScope: string | null = null;
    if (q.org_id) {
      const m = ctx.memberships.find((x) => x.orgId === q.org_id || x.handle === q.org_id);
      if (!m) throw notFound('org_not_found', `no organisation ${q.org_id} that you belong to`);
      if (m.role === 'admin') orgScope = m.orgId;
    }
    const values: unknown[] = [ctx.principalId, orgScope];
    const where = ['(actor_id = $1 OR ($2::text IS NOT NULL AND org_id = $2))'];
    if (since) { values.push(since); where.push(`created_at >= $${values.length}`); }
    if (action && 'exact' in action) { values.push(action.exact); where.push(`action = $${values.length}`); }
    if (action && 'like' in action) { values.push(action.like); where.push(`action LIKE $${values.length}`); }
    values.push(limit);
    const { rows } = await d.db.query(
      `SELECT id, action, actor_id, actor_kind, org_id, target_type, target_id, request_id, data, created_at
         FROM audit_events WHERE ${where.join(' AND ')} ORDER BY created_at DESC, id DESC LIMIT $${values.length}`,
      values);
    res.json({
      events: rows.map((r) => ({ ...r, id: String(r.id), created_at: new Date(r.created_at).toISOString() })),
      count: rows.length,
      since: since?.toISOString() ?? null,
      limit,
      org_id: q.org_id ? (ctx.memberships.find((x) => x.orgId === q.org_id || x.handle === q.org_id)!.orgId) : null,
    });
  });
}
