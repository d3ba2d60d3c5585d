import type { AccessContext } from '@floe/accounts';
import type { Db } from '@floe/db';
import { badRequest, notFound } from '@floe/http';
import { auditEvents } from '../../store/audit';

// Spec: GET /v1/audit. Without org_id: the caller's own events. With org_id:
// an admin sees the organisation's events plus their own; a member only their own.
// Floe's answer says which (`scope`), and without org_id names the
// organisations whose events an admin can ask for (`admin_of`), which is
// what Floe's own views (the CLI's, the console's) ask with by default.
// The filters: `since` as a relative span (24h, 7d, 30m) or an
// ISO 8601 time; `action` an exact name or a prefix ending in `*`.

const SPAN = /^(\d{1,6})([smhd])$/;
const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

export function parseSince(raw: string | undefined, now = Date.now()): Date | null {
  if (raw === undefined || raw === '') return null;
  const span = SPAN.exec(raw);
  if (span) return new Date(now - Number(span[1]) * UNIT_MS[span[2]]);
  if (/^\d{4}-\d{2}-\d{2}/.test(raw)) {
    const t = Date.parse(raw);
    if (Number.isFinite(t)) return new Date(t);
  }
  throw badRequest('invalid_value', 'since is a span like 24h, 7d, 30m or an ISO 8601 time', { field: 'since' });
}

/** The action filter: a prefix (ending `*`), or the exact name. */
export function actionPattern(raw: string | undefined): { prefix: string } | { exact: string } | null {
  if (raw === undefined || raw === '') return null;
  if (!/^[a-z_.]+\*?$/.test(raw)) throw badRequest('invalid_value', 'action is a name like warehouse.create or a prefix ending in *', { field: 'action' });
  return raw.endsWith('*') ? { prefix: raw.slice(0, -1) } : { exact: raw };
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw badRequest('invalid_value', 'limit is a whole number from 1 to 1000', { field: 'limit' });
  return n;
}

export interface AuditQuery {
  since?: string;
  action?: string;
  limit?: string;
  org_id?: string;
}

/** The events the caller may read under the query's filters, with the filters as understood. */
export async function readAudit(db: Db, ctx: AccessContext, q: AuditQuery) {
  const since = parseSince(q.since);
  const action = actionPattern(q.action);
  const limit = parseLimit(q.limit);
  let orgId: string | null = null;
  let orgScope: string | null = null;
  if (q.org_id) {
    const m = ctx.memberships.find((x) => x.orgId === q.org_id || x.handle === q.org_id);
    if (!m) throw notFound('org_not_found', `no organisation ${q.org_id} that you belong to`);
    orgId = m.orgId;
    if (m.role === 'admin') orgScope = m.orgId;
  }
  const events = await auditEvents(db, { principalId: ctx.principalId, orgScope, since, action, limit });
  // The spec keeps the default to one's own events; an admin is told where the organisation's are.
  const adminOf = orgId ? [] : ctx.memberships.filter((m) => m.role === 'admin').map((m) => ({ org_id: m.orgId, handle: m.handle }));
  return { events, since, limit, orgId, scope: orgScope ? 'organisation' as const : 'own' as const, adminOf };
}
