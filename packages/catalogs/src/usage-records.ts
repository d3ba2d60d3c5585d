import { Prisma, type Db } from '@floe/db';
import type { UsageReport } from '@floe/queues';
import type { BucketMeasure } from '@floe/storage';

// Usage samples: the latest per warehouse answers "how much is stored" for
// quotas and the public tier.

// One query for both clients: the ingest gateway's hot path runs it over pg, this service over Prisma.
export { scopeStoredBytes, warehouseTraffic, type TrafficDay } from '@floe/db/usage';

/**
 * Bytes already in the public tier of the scope (organisation, or an owner's
 * projects outside any), by the latest sample of each public warehouse other than `exceptWarehouse`.
 */
export async function publicTierBytes(db: Db, orgId: string | null, ownerId: string, exceptWarehouse: string): Promise<number> {
  // Raw: the latest sample of each warehouse is a LATERAL join.
  const rows = await db.$queryRaw<Array<{ bytes: bigint | string | null }>>`
    SELECT sum(s.table_bytes) AS bytes
      FROM warehouses w JOIN projects p ON p.id = w.project_id
      JOIN LATERAL (SELECT table_bytes FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY measured_at DESC LIMIT 1) s ON true
     WHERE w.public_since IS NOT NULL AND w.id <> ${exceptWarehouse} AND w.status IN ('provisioning', 'ready')
       AND ${orgId ? Prisma.sql`w.org_id = ${orgId}` : Prisma.sql`w.org_id IS NULL AND p.owner_id = ${ownerId}`}`;
  return Number(rows[0]?.bytes ?? 0);
}

/** Stores a measurement of both buckets as the warehouse's newest sample (`on_demand`); returns its time. */
export async function insertOnDemandSample(db: Db, warehouseId: string, m: { table: BucketMeasure; blob: BucketMeasure }): Promise<Date> {
  const row = await db.usageSample.create({
    data: {
      warehouseId, source: 'on_demand',
      tableBytes: BigInt(m.table.bytes), blobBytes: BigInt(m.blob.bytes), objects: BigInt(m.table.objects), blobObjects: BigInt(m.blob.objects),
      complete: !m.table.partial && !m.blob.partial,
    },
    select: { measuredAt: true },
  });
  return row.measuredAt;
}

/** A catalog's last footprint of one UTC day (its traffic: `warehouseTraffic`, from the metering worker's hourly counters). */
export interface DailyUsageRow {
  warehouseId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  measuredAt: Date;
  tableBytes: number;
  blobBytes: number;
  objects: number;
  blobObjects: number;
}

/** The last sample of each UTC day from `since` on, per catalog: GET /v1/usage's footprint history. */
export async function dailyUsage(db: Db, warehouseIds: string[], since: Date): Promise<DailyUsageRow[]> {
  if (!warehouseIds.length) return [];
  // Raw: DISTINCT ON picks the last sample of each (catalog, UTC day).
  const rows = await db.$queryRaw<Array<{ warehouse_id: string; day: string; measured_at: Date; table_bytes: bigint; blob_bytes: bigint; objects: bigint; blob_objects: bigint }>>`
    SELECT DISTINCT ON (warehouse_id, day) warehouse_id, day, measured_at, table_bytes, blob_bytes, objects, blob_objects
      FROM (SELECT u.*, to_char(u.measured_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day FROM usage_samples u
             WHERE u.warehouse_id = ANY(${warehouseIds}::text[]) AND u.measured_at >= ${since}) s
     ORDER BY warehouse_id, day, measured_at DESC, id DESC`;
  return rows.map((r) => ({
    warehouseId: r.warehouse_id, day: r.day, measuredAt: r.measured_at,
    tableBytes: Number(r.table_bytes), blobBytes: Number(r.blob_bytes), objects: Number(r.objects), blobObjects: Number(r.blob_objects),
  }));
}

/** Sink intake (`ingest_bytes`) per catalog per UTC day from `since` on. */
export async function dailyIngest(db: Db, warehouseIds: string[], since: Date): Promise<Array<{ warehouseId: string; day: string; ingestBytes: number }>> {
  if (!warehouseIds.length) return [];
  const rows = await db.ingestUsage.groupBy({
    by: ['warehouseId', 'day'],
    where: { warehouseId: { in: warehouseIds }, day: { gte: since } },
    _sum: { ingestBytes: true },
  });
  return rows.map((r) => ({ warehouseId: r.warehouseId, day: r.day.toISOString().slice(0, 10), ingestBytes: Number(r._sum.ingestBytes ?? 0) }));
}

/** The scope's stored objects and the oldest of its catalogs' latest samples (how fresh a scope-wide figure is). */
export async function scopeSampleSummary(db: Db, orgId: string | null, ownerId: string): Promise<{ objects: number; oldestMeasuredAt: Date | null; metered: number; live: number }> {
  // Raw: the latest sample of each warehouse is a LATERAL join, as in scopeStoredBytes.
  const rows = await db.$queryRaw<Array<{ objects: bigint | null; oldest: Date | null; metered: bigint; live: bigint }>>`
    SELECT sum(s.objects + s.blob_objects) AS objects, min(s.measured_at) AS oldest, count(s.measured_at) AS metered, count(*) AS live
      FROM warehouses w JOIN projects p ON p.id = w.project_id
      LEFT JOIN LATERAL (SELECT objects, blob_objects, measured_at FROM usage_samples u WHERE u.warehouse_id = w.id ORDER BY measured_at DESC LIMIT 1) s ON true
     WHERE w.status IN ('provisioning', 'ready')
       AND ${orgId ? Prisma.sql`w.org_id = ${orgId}` : Prisma.sql`w.org_id IS NULL AND p.owner_id = ${ownerId}`}`;
  const r = rows[0];
  return { objects: Number(r?.objects ?? 0), oldestMeasuredAt: r?.oldest ?? null, metered: Number(r?.metered ?? 0), live: Number(r?.live ?? 0) };
}

/** Projects of the scope, with their catalogs counted as the catalogs-per-project limit counts them (a row being created included). */
export async function scopeProjects(db: Db, orgId: string | null, ownerId: string): Promise<Array<{ id: string; name: string; catalogs: number }>> {
  const projects = await db.project.findMany({ where: orgId ? { orgId } : { orgId: null, ownerId }, select: { id: true, name: true }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  const counts = await db.warehouse.groupBy({ by: ['projectId'], where: { projectId: { in: projects.map((p) => p.id) }, status: { in: ['creating', 'provisioning', 'ready'] } }, _count: { _all: true } });
  const by = new Map(counts.map((c) => [c.projectId, c._count._all]));
  return projects.map((p) => ({ ...p, catalogs: by.get(p.id) ?? 0 }));
}

/** The quota scope of a live warehouse (provisioning or ready); null when it is gone or being deleted. */
export async function liveWarehouseScope(db: Db, warehouseId: string): Promise<{ orgId: string | null; ownerId: string } | null> {
  const w = await db.warehouse.findFirst({
    relationLoadStrategy: 'join',
    where: { id: warehouseId, status: { in: ['provisioning', 'ready'] }, project: { isNot: null } },
    select: { orgId: true, project: { select: { ownerId: true } } },
  });
  return w?.project ? { orgId: w.orgId, ownerId: w.project.ownerId } : null;
}

/**
 * Stores the metering worker's report: the job's sample — written once, then
 * rewritten by a retry of the same job (its key), never a second row — and
 * its traffic hours rewritten with the log's totals so far. One transaction.
 */
export async function upsertReportedSample(db: Db, r: UsageReport): Promise<void> {
  await db.$transaction(async (tx) => {
    const figures = {
      warehouseId: r.warehouse_id, source: r.source, measuredAt: new Date(r.measured_at), staleAfter: new Date(r.stale_after),
      tableBytes: BigInt(r.table.bytes), blobBytes: BigInt(r.blob?.bytes ?? 0), objects: BigInt(r.table.objects), blobObjects: BigInt(r.blob?.objects ?? 0),
      complete: r.complete, trafficCounted: r.traffic !== null,
    };
    await tx.usageSample.upsert({ where: { jobKey: r.job_key }, create: { ...figures, jobKey: r.job_key }, update: figures });
    for (const h of r.traffic ?? []) {
      const counters = { requests: BigInt(h.requests), bytesIn: BigInt(h.bytes_in), bytesOut: BigInt(h.bytes_out), updatedAt: new Date() };
      await tx.usageTrafficHour.upsert({
        where: { warehouseId_hour: { warehouseId: r.warehouse_id, hour: new Date(h.hour) } },
        create: { warehouseId: r.warehouse_id, hour: new Date(h.hour), ...counters },
        update: counters,
      });
    }
  });
}
