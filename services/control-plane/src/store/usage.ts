import { Prisma, type Db } from '@floe/db';
import type { UsageReport } from '@floe/queues';
import type { BucketMeasure } from '@floe/storage';

// Usage samples: the latest per warehouse answers "how much is stored" for
// quotas and the public tier.

// One query for both clients: the ingest gateway's hot path runs it over pg, this service over Prisma.
export { scopeStoredBytes } from '@floe/db/usage';

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

/** The quota scope of a live warehouse (provisioning or ready); null when it is gone or being deleted. */
export async function liveWarehouseScope(db: Db, warehouseId: string): Promise<{ orgId: string | null; ownerId: string } | null> {
  // Raw: the owner comes from the project; the schema declares no relations.
  const rows = await db.$queryRaw<Array<{ org_id: string | null; owner_id: string }>>`
    SELECT w.org_id, p.owner_id FROM warehouses w JOIN projects p ON p.id = w.project_id
     WHERE w.id = ${warehouseId} AND w.status IN ('provisioning', 'ready')`;
  return rows[0] ? { orgId: rows[0].org_id, ownerId: rows[0].owner_id } : null;
}

/** Stores the metering worker's report: the sample, and its traffic hours rewritten with the log's totals so far. One transaction. */
export async function insertReportedSample(db: Db, r: UsageReport): Promise<void> {
  await db.$transaction(async (tx) => {
    await tx.usageSample.create({
      data: {
        warehouseId: r.warehouse_id, source: r.source, measuredAt: new Date(r.measured_at), staleAfter: new Date(r.stale_after),
        tableBytes: BigInt(r.table.bytes), blobBytes: BigInt(r.blob?.bytes ?? 0), objects: BigInt(r.table.objects), blobObjects: BigInt(r.blob?.objects ?? 0),
        complete: r.complete, trafficCounted: r.traffic !== null,
      },
    });
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
