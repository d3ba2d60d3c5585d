import { badRequest } from '@floe/http';

// GET /v1/audit's filters: `since` as a relative span (24h, 7d, 30m) or an
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

/** An SQL LIKE pattern for the action filter (prefix ending `*`), or the exact name. */
export function actionPattern(raw: string | undefined): { like: string } | { exact: string } | null {
  if (raw === undefined || raw === '') return null;
  if (!/^[a-z_.]+\*?$/.test(raw)) throw badRequest('invalid_value', 'action is a name like warehouse.create or a prefix ending in *', { field: 'action' });
  return raw.endsWith('*') ? { like: `${raw.slice(0, -1).replace(/_/g, '\\_')}%` } : { exact: raw };
}

export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return 100;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 1000) throw badRequest('invalid_value', 'limit is a whole number from 1 to 1000', { field: 'limit' });
  return n;
}
