import { randomBytes } from 'node:crypto';
import type { Prisma, PrismaClient } from '@floe/db';
import { joinNamespace } from '@floe/iceberg';
import type { MaintenanceKind, MaintenanceTrigger } from '@floe/queues';
import type { TableRef } from '@floe/catalog-client';

// The maintenance runs this worker records (schema: MaintenanceRun): a row
// when a kind's run begins (`running`), finished with its outcome. A namespace
// is held as one string, as in catalog_tables (@floe/iceberg's joinNamespace).

export type RunStatus = 'running' | 'done' | 'skipped' | 'retried_after_conflict' | 'failed';

export interface RunFigures {
  snapshots: number;
  manifests: number | null;
  data_files: number | null;
  data_bytes: number | null;
  metadata_files: number;
}

export async function beginRun(prisma: PrismaClient, r: {
  ref: TableRef; tableUuid: string | null; kind: MaintenanceKind; trigger: MaintenanceTrigger; requestedBy: string | null; jobId: string | null; before: RunFigures;
}): Promise<string> {
  const id = `mrun_${randomBytes(12).toString('hex')}`;
  await prisma.maintenanceRun.create({
    data: {
      id, warehouseId: r.ref.warehouseId, namespace: joinNamespace(r.ref.namespace), tableName: r.ref.table, tableUuid: r.tableUuid, kind: r.kind,
      trigger: r.trigger as unknown as Prisma.InputJsonValue, status: 'running', requestedBy: r.requestedBy, jobId: r.jobId,
      before: r.before as unknown as Prisma.InputJsonValue,
    },
  });
  return id;
}

export async function finishRun(prisma: PrismaClient, id: string, f: {
  status: Exclude<RunStatus, 'running'>; reason: string | null; after: (RunFigures & Record<string, number | null>) | null; freedBytes: number; snapshotId: bigint | null;
}): Promise<void> {
  await prisma.maintenanceRun.update({
    where: { id },
    data: {
      status: f.status, reason: f.reason, after: (f.after ?? undefined) as unknown as Prisma.InputJsonValue | undefined,
      freedBytes: BigInt(f.freedBytes), snapshotId: f.snapshotId, finishedAt: new Date(),
    },
  });
}

/**
 * Runs of a table still `running` when a new run takes the table's lock: the
 * worker doing them stopped (killed, out of memory) before it could finish
 * them — the lock would not be free otherwise. Recorded failed, with why.
 */
export async function abandonRuns(prisma: PrismaClient, ref: TableRef): Promise<number> {
  const r = await prisma.maintenanceRun.updateMany({
    where: { warehouseId: ref.warehouseId, namespace: joinNamespace(ref.namespace), tableName: ref.table, status: 'running' },
    data: { status: 'failed', reason: 'the worker running it stopped before it finished; a later run took the table over', finishedAt: new Date() },
  });
  return r.count;
}

/** When a kind last ran to its end on a table (the sweep's daily rules). */
export async function lastFinished(prisma: PrismaClient, ref: TableRef, kind: MaintenanceKind): Promise<Date | null> {
  const r = await prisma.maintenanceRun.findFirst({
    where: { warehouseId: ref.warehouseId, namespace: joinNamespace(ref.namespace), tableName: ref.table, kind, status: { in: ['done', 'skipped', 'retried_after_conflict'] } },
    orderBy: { startedAt: 'desc' },
    select: { finishedAt: true },
  });
  return r?.finishedAt ?? null;
}
