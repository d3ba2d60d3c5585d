import type { Db } from '@floe/db';
import { joinNamespace } from '@floe/iceberg';

// A table's maintenance runs as the maintenance worker recorded them
// (maintenance_runs; the worker writes, this reads), newest first.

export interface MaintenanceRunRecord {
  id: string;
  kind: string;
  trigger: unknown;
  status: string;
  reason: string | null;
  before: unknown;
  after: unknown;
  freedBytes: bigint;
  snapshotId: bigint | null;
  requestedBy: string | null;
  startedAt: Date;
  finishedAt: Date | null;
}

export async function runsOfTable(db: Db, t: { warehouseId: string; namespace: string[]; table: string }, limit: number): Promise<MaintenanceRunRecord[]> {
  return db.maintenanceRun.findMany({
    where: { warehouseId: t.warehouseId, namespace: joinNamespace(t.namespace), tableName: t.table },
    orderBy: [{ startedAt: 'desc' }, { id: 'asc' }],
    take: limit,
    select: { id: true, kind: true, trigger: true, status: true, reason: true, before: true, after: true, freedBytes: true, snapshotId: true, requestedBy: true, startedAt: true, finishedAt: true },
  });
}
