// Stored bytes per quota scope, read by every deployable that enforces the
// storage limit (control plane, ingest gateway). A subpath export: importing
// it does not load the Prisma client.

/** A pg pool or client, or a Prisma client or transaction (its raw query). */
type Queryable =
  | { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, any>> }> }
  | { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> };

/**
 * Stored bytes of a quota scope — an organisation, or an owner's projects
 * outside any — by the latest sample of each live warehouse, counted against
 * the private storage limit. A public catalog's table bucket is in the public
 * tier (its own allowance, control-plane domain/publishing.ts), so only its
 * blob bytes count here; its blob bucket is never public.
 */
export async function scopeStoredBytes(db: Queryable, orgId: string | null, ownerId: string): Promise<number> {
  const text = `SELECT sum(CASE WHEN w.public_since IS NULL THEN s.table_bytes ELSE 0 END + s.blob_bytes) AS bytes
       FROM warehouses w JOIN projects p ON p.id = w.project_id
       JOIN LATERAL (SELECT table_bytes, blob_bytes FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY measured_at DESC LIMIT 1) s ON true
      WHERE w.status IN ('provisioning', 'ready') AND ${orgId ? 'w.org_id = $1' : 'w.org_id IS NULL AND p.owner_id = $1'}`;
  const rows = 'query' in db ? (await db.query(text, [orgId ?? ownerId])).rows : await db.$queryRawUnsafe<Array<{ bytes: unknown }>>(text, orgId ?? ownerId);
  return Number(rows[0]?.bytes ?? 0);
}

/** A catalog's traffic in one UTC hour or day, both buckets together. */
export interface TrafficCounters {
  requests: number;
  bytes_in: number;
  bytes_out: number;
}

export interface TrafficDay extends TrafficCounters {
  /** YYYY-MM-DD, UTC. */
  day: string;
}

/** Hourly counters summed per UTC day, oldest day first. */
export function trafficByDay(hours: Array<TrafficCounters & { hour: Date }>): TrafficDay[] {
  const days = new Map<string, TrafficDay>();
  for (const h of hours) {
    const day = h.hour.toISOString().slice(0, 10);
    const d = days.get(day) ?? { day, requests: 0, bytes_in: 0, bytes_out: 0 };
    d.requests += h.requests;
    d.bytes_in += h.bytes_in;
    d.bytes_out += h.bytes_out;
    days.set(day, d);
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

export const TRAFFIC_PENDING_NOTE = 'traffic is shown once two consecutive hourly samples carry the store\'s request counters';

/**
 * Spec (Usage and audit): `traffic` is null until two consecutive hourly
 * samples carry counters. `latest` are the catalog's newest worker samples
 * (sweep or creation; on-demand listings carry no counters), newest first.
 */
export function trafficShown(latest: Array<{ trafficCounted: boolean }>): boolean {
  return latest.length >= 2 && latest[0].trafficCounted && latest[1].trafficCounted;
}

/**
 * For GET /v1/usage: a catalog's traffic per UTC day over the last `days`
 * days (today included), or null with `traffic_note` until two consecutive
 * worker samples carry counters.
 */
export async function warehouseTraffic(db: Queryable, warehouseId: string, days: number): Promise<{ traffic: TrafficDay[] | null; traffic_note: string | null }> {
  const run = async (text: string, values: unknown[]) => ('query' in db ? (await db.query(text, values)).rows : await db.$queryRawUnsafe<Array<Record<string, any>>>(text, ...values));
  const latest = await run(
    `SELECT traffic_counted FROM usage_samples WHERE warehouse_id = $1 AND source IN ('sweep', 'creation') ORDER BY measured_at DESC LIMIT 2`, [warehouseId],
  );
  if (!trafficShown(latest.map((r) => ({ trafficCounted: Boolean(r.traffic_counted) })))) return { traffic: null, traffic_note: TRAFFIC_PENDING_NOTE };
  const since = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - (days - 1) * 86_400_000);
  const hours = await run(
    `SELECT hour, requests, bytes_in, bytes_out FROM usage_traffic_hours WHERE warehouse_id = $1 AND hour >= $2 ORDER BY hour`, [warehouseId, since],
  );
  return {
    traffic: trafficByDay(hours.map((h) => ({ hour: new Date(h.hour), requests: Number(h.requests), bytes_in: Number(h.bytes_in), bytes_out: Number(h.bytes_out) }))),
    traffic_note: null,
  };
}
