import { type AccessContext, atLeast, countPendingInvitations } from '@floe/accounts';
import { resolveProject, visibleWarehouses, type VisibleWarehouse, dailyIngest, dailyUsage, publicTierBytes, scopeProjects, scopeSampleSummary, scopeStoredBytes, warehouseTraffic, type DailyUsageRow, type TrafficDay, chosenMembership } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { effectiveLimits, LIMITS, type LimitName } from '@floe/db/limits';
import { badRequest } from '@floe/http';
import { deviceSinksOf } from '../../store/sinks';
import { SAMPLE_STALE_AFTER_MS } from './measuring';

// GET /v1/usage: every limit of the caller's scope (its organisation, or its
// own projects outside any) with the current value and headroom, and per
// catalog the caller can see the footprint and one row per UTC day. Scope-wide
// figures are the scope's; per-catalog detail follows warehouse visibility.

export const TRAFFIC_NOTE = 'Traffic (requests, bytes in and out) appears once two consecutive hourly samples carry counters; until then it is null.';

/** `days`: 1..30, default 7; anything else 400 `invalid_value`. */
export function daysOf(raw: unknown): number {
  if (raw === undefined) return 7;
  const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > 30) throw badRequest('invalid_value', 'days is a whole number from 1 to 30', { field: 'days', min: 1, max: 30 });
  return n;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);
const staleAfter = (d: Date | null) => (d ? new Date(d.getTime() + SAMPLE_STALE_AFTER_MS).toISOString() : null);

/** The UTC days of the window, oldest first, ending today. */
export function windowDays(days: number, now = new Date()): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: days }, (_, i) => new Date(today - (days - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

function limitRow(name: LimitName, value: number, current: number, extra: Record<string, unknown> = {}) {
  return { value, current, headroom: Math.max(0, value - current), over_limit: current > value, enforcement: LIMITS[name], ...extra };
}

export async function usageOf(db: Db, ctx: AccessContext, q: { project_id?: unknown; org_id?: unknown; days?: unknown }) {
  // validate and choose the scope
  const days = daysOf(q.days);
  if (q.project_id !== undefined && typeof q.project_id !== 'string') throw badRequest('invalid_value', 'project_id is one id or name', { field: 'project_id' });
  const project = typeof q.project_id === 'string' ? await resolveProject(db, ctx, q.project_id) : null;
  const orgId = project ? project.orgId : chosenMembership(ctx, typeof q.org_id === 'string' ? q.org_id : undefined, 400)?.orgId ?? null;
  const ownerId = project ? project.ownerId : ctx.principalId;

  // the scope's limits
  const { plan, limits } = await effectiveLimits(db, orgId);
  const [stored, publicBytes, summary, projects, deviceSinks, invitations] = await Promise.all([
    scopeStoredBytes(db, orgId, ownerId), publicTierBytes(db, orgId, ownerId, ''), scopeSampleSummary(db, orgId, ownerId),
    scopeProjects(db, orgId, ownerId), deviceSinksOf(db, orgId, ownerId), orgId ? countPendingInvitations(db, orgId) : 0,
  ]);
  const measured = { measured_at: iso(summary.oldestMeasuredAt), stale_after: staleAfter(summary.oldestMeasuredAt), unmetered: summary.metered === 0, unmetered_catalogs: summary.live - summary.metered };
  const perProject = project ? projects.filter((p) => p.id === project.id) : projects;
  const busiest = Math.max(0, ...perProject.map((p) => p.catalogs));

  // the catalogs the caller can see and read (a revoked membership read is listed elsewhere at level none, but its usage is not the caller's to read), in the scope
  const visible = (await visibleWarehouses(db, ctx, project ? { projectId: project.id } : {}))
    .filter((w) => atLeast(w.access.level, 'read') && w.orgId === orgId && (orgId !== null || w.projectOwner === ownerId));
  const window = windowDays(days);
  const since = new Date(`${window[0]}T00:00:00.000Z`);
  const ids = visible.map((w) => w.id);
  const [history, ingest, traffic] = await Promise.all([
    dailyUsage(db, ids, since), dailyIngest(db, ids, since), Promise.all(visible.map((w) => warehouseTraffic(db, w.id, days))),
  ]);

  return {
    scope: orgId ? 'organization' : 'project',
    org_id: orgId,
    project_id: project?.id ?? null,
    plan,
    days,
    window: { from: window[0], to: window[window.length - 1] },
    limits: {
      projects: limitRow('projects', limits.projects, projects.length),
      warehouses: limitRow('warehouses', limits.warehouses, projects.reduce((n, p) => n + p.catalogs, 0)),
      warehouses_per_project: limitRow('warehouses_per_project', limits.warehouses_per_project, busiest, {
        per_project: perProject.map((p) => ({ project_id: p.id, name: p.name, current: p.catalogs, headroom: Math.max(0, limits.warehouses_per_project - p.catalogs) })),
      }),
      storage_bytes: { ...limitRow('storage_bytes', limits.storage_bytes, stored), over_limit: stored >= limits.storage_bytes, ...measured },
      public_storage_bytes: { ...limitRow('public_storage_bytes', limits.public_storage_bytes, publicBytes), over_limit: publicBytes > limits.public_storage_bytes, ...measured },
      objects: { ...limitRow('objects', limits.objects, summary.objects), over_limit: summary.objects > limits.objects, ...measured },
      device_sinks: limitRow('device_sinks', limits.device_sinks, deviceSinks),
      pending_invitations: limitRow('pending_invitations', limits.pending_invitations, invitations),
    },
    warehouses: visible.map((w, i) => catalogUsage(w, window, history.filter((h) => h.warehouseId === w.id), ingest.filter((x) => x.warehouseId === w.id), traffic[i].traffic)),
    ...(traffic.some((t) => t.traffic === null) ? { traffic_note: TRAFFIC_NOTE } : {}),
    note: 'Storage is metered hourly; every storage figure carries measured_at and stale_after. Scope-wide figures count every catalog of the scope; the per-catalog rows list the catalogs you can see.',
  };
}

/** One catalog's rows; `trafficDays` null until the metering worker's two latest samples carry counters (then a day without traffic is 0). */
function catalogUsage(w: VisibleWarehouse, window: string[], history: DailyUsageRow[], ingest: Array<{ day: string; ingestBytes: number }>, trafficDays: TrafficDay[] | null) {
  const byDay = new Map(history.map((h) => [h.day, h]));
  const trafficByDay = new Map((trafficDays ?? []).map((t) => [t.day, t]));
  const counted = (day: string, k: 'requests' | 'bytes_in' | 'bytes_out') => (trafficDays ? trafficByDay.get(day)?.[k] ?? 0 : null);
  const ingestByDay = new Map(ingest.map((i) => [i.day, i.ingestBytes]));
  const rows = window.map((day) => {
    const h = byDay.get(day);
    return {
      day,
      measured_at: iso(h?.measuredAt ?? null), stale_after: staleAfter(h?.measuredAt ?? null),
      table_bytes: h?.tableBytes ?? null, blob_bytes: h?.blobBytes ?? null, bytes: h ? h.tableBytes + h.blobBytes : null, objects: h ? h.objects + h.blobObjects : null,
      requests: counted(day, 'requests'), bytes_in: counted(day, 'bytes_in'), bytes_out: counted(day, 'bytes_out'),
      ingest_bytes: ingestByDay.get(day) ?? 0,
    };
  });
  const known = rows.filter((r) => r.bytes !== null);
  const first = known[0];
  const last = known[known.length - 1];
  const change = first && last ? last.bytes! - first.bytes! : null;
  const traffic = trafficDays !== null;
  const sum = (k: 'requests' | 'bytes_in' | 'bytes_out') => (traffic ? rows.reduce((a, r) => a + (r[k] ?? 0), 0) : null);
  const u = w.usage;
  return {
    warehouse_id: w.id, name: w.name, project_id: w.projectId, project: w.projectName,
    tier: w.publicSince ? 'public' : 'private',
    my_level: w.access.level,
    unmetered: !u,
    footprint: u ? {
      table: { bytes: u.tableBytes, objects: u.objects }, blob: { bytes: u.blobBytes, objects: u.blobObjects },
      bytes: u.tableBytes + u.blobBytes, objects: u.objects + u.blobObjects,
      measured_at: iso(u.measuredAt), stale_after: staleAfter(u.measuredAt), source: u.source, complete: u.complete,
    } : null,
    days: rows,
    trend: { from: first?.day ?? null, to: last?.day ?? null, bytes_change: change, direction: change === null ? null : change > 0 ? 'up' : change < 0 ? 'down' : 'flat' },
    totals: { ingest_bytes: rows.reduce((a, r) => a + r.ingest_bytes, 0), requests: sum('requests'), bytes_in: sum('bytes_in'), bytes_out: sum('bytes_out') },
    traffic: traffic ? { requests: sum('requests'), bytes_in: sum('bytes_in'), bytes_out: sum('bytes_out') } : null,
    ...(traffic ? {} : { traffic_note: TRAFFIC_NOTE }),
  };
}
