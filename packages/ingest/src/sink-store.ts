import { Prisma, type Db, type PrismaClient } from '@floe/db';
import type { DeviceOptions } from './device-options';

// The sink record's one writer, beside the ledger's (ledger-store.ts): a
// sink made, deleted, its device token set or removed — the control plane's
// sink routes call these — and a torn-down catalog's sinks ended with their
// waiting batches discarded, inside the teardown worker's final transaction.
// The roll's side of the row (last roll, rejects, disabling) is the ledger's.
//
// Through the Prisma client; records are camelCase. Imported as
// `@floe/ingest/sink-store`, so what imports `@floe/ingest` alone does not
// load the Prisma client.

export interface NewSink {
  id: string;
  name: string;
  warehouseId: string;
  namespace: string;
  tableName: string;
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  sendKeyId: string;
  sendKeyHash: string;
  createdBy: string;
}

/**
 * Inserts a sink; false (nothing written) when a live sink already takes its
 * table or its name in the catalog: the partial unique indexes on live rows
 * (`sinks_live_table_key`, `sinks_live_name_key`) decide, so concurrent
 * creates make one.
 */
export async function insertSink(prisma: PrismaClient, s: NewSink): Promise<boolean> {
  try {
    await prisma.sink.create({ data: { ...s, rollBytes: BigInt(s.rollBytes) } });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'P2002') return false;
    throw err;
  }
}

/** Marks a live sink deleted (its first deletion time kept); false when it was deleted already (a concurrent deletion went first). */
export async function markSinkDeleted(prisma: PrismaClient, id: string): Promise<boolean> {
  // Raw: one conditional statement moves the state and keeps a first deletion time (COALESCE), so one of concurrent deletions does it.
  const n = await prisma.$executeRaw`UPDATE sinks SET state = 'deleted', deleted_at = COALESCE(deleted_at, now()) WHERE id = ${id} AND state <> 'deleted'`;
  return n === 1;
}

/** Sets (or replaces) a sink's device token and options; when it was set. */
export async function setDeviceToken(db: Db, id: string, tokenHash: string, options: DeviceOptions): Promise<Date> {
  const { deviceTokenAt } = await db.sink.update({
    where: { id },
    data: { deviceTokenHash: tokenHash, deviceOptions: { ...options, preset_params: { ...options.preset_params } }, deviceTokenAt: new Date() },
    select: { deviceTokenAt: true },
  });
  return deviceTokenAt!;
}

/** Removes a sink's device token; whether it had one (of concurrent removals, one did). */
export async function clearDeviceToken(prisma: PrismaClient, id: string): Promise<boolean> {
  const { count } = await prisma.sink.updateMany({ where: { id, deviceTokenHash: { not: null } }, data: { deviceTokenHash: null, deviceOptions: Prisma.DbNull, deviceTokenAt: null } });
  return count === 1;
}

/**
 * A torn-down catalog's sinks end, inside the teardown's transaction: every
 * sink not yet deleted is marked deleted at `at`, and the waiting batches of
 * all its sinks (deleted ones included) are discarded at `at` — their objects
 * went with the blob bucket. Pass the teardown's completion time as `at`, so
 * these rows and the tombstone agree. Counts what it changed.
 */
export async function endSinksOfWarehouse(
  tx: Prisma.TransactionClient, warehouseId: string, at: Date = new Date(),
): Promise<{ sinksDeleted: number; batchesDiscarded: number }> {
  const sinks = await tx.sink.findMany({ where: { warehouseId }, select: { id: true } });
  const deleted = await tx.sink.updateMany({ where: { warehouseId, state: { not: 'deleted' } }, data: { state: 'deleted', deletedAt: at } });
  const discarded = await tx.sinkBatch.updateMany({ where: { sinkId: { in: sinks.map((s) => s.id) }, state: 'pending' }, data: { state: 'discarded', committedAt: at } });
  return { sinksDeleted: deleted.count, batchesDiscarded: discarded.count };
}
