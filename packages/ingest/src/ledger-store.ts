import type { Prisma, PrismaClient } from '@floe/db';
import { RECENT_REJECT_ROLLS, type RecentRejectRoll, type RollRecorded, type RollReport } from './roll-report';
import { worklistEntry, type WaitingSink, type WorklistEntry } from './worklist';

// The sink ledger's one owner: every read and write of a roll's side of the
// `sinks` and `sink_batches` rows — the worklist, a sink's waiting batches and
// where its objects are, and recording a roll (batches committed or
// discarded, the roll's counters, disabling, pruning). The roller records its
// rolls here directly; the control plane's internal routes
// (`GET /internal/sinks`, `POST /internal/sinks/{id}/roll`) serve the same
// functions. The ingest gateway writes received batches (its own ledger.ts);
// the sink record's other writes (made, deleted, device token, ended with its
// catalog) are sink-store.ts.
//
// Through the Prisma client; records are camelCase. Imported as
// `@floe/ingest/ledger-store`, so what imports `@floe/ingest` alone (the share
// thread, the gateway's hot path) does not load the Prisma client.

/** Committed and discarded batch rows are kept this long (their ids refuse a re-send as a duplicate), then pruned. */
export const LEDGER_DAYS = 7;

/** At most this many waiting batches are read for one roll (a roll takes at most ROLL_MAX_BYTES of them anyway). */
const PENDING_READ_LIMIT = 5000;

/** Live sinks with waiting batches, and deleted ones whose waiting batches are to be discarded; oldest waiting first. */
export async function waitingSinks(prisma: PrismaClient): Promise<WaitingSink[]> {
  const groups = await prisma.sinkBatch.groupBy({
    by: ['sinkId'], where: { state: 'pending' },
    _count: { _all: true }, _sum: { bytes: true }, _min: { receivedAt: true }, _max: { receivedAt: true },
  });
  if (!groups.length) return [];
  // A catalog being deleted has no roll: its catalog and storage refuse it (restore brings the batches back into turn).
  const paused = await prisma.warehouse.findMany({ where: { status: 'deleting' }, select: { id: true } });
  const sinks = await prisma.sink.findMany({
    where: { id: { in: groups.map((g) => g.sinkId) }, state: { in: ['active', 'deleted'] }, warehouseId: { notIn: paused.map((w) => w.id) } },
    select: {
      id: true, warehouseId: true, namespace: true, tableName: true, state: true, rollSeconds: true, rollBytes: true,
      inactivitySeconds: true, tableChangesApplied: true,
    },
  });
  const bySink = new Map(groups.map((g) => [g.sinkId, g]));
  const out: WaitingSink[] = [];
  for (const s of sinks) {
    const g = bySink.get(s.id)!;
    out.push({
      ...s, state: s.state === 'deleted' ? 'deleted' : 'active', rollBytes: Number(s.rollBytes),
      batches: g._count._all, bytes: g._sum.bytes ?? 0, oldest: g._min.receivedAt!, newest: g._max.receivedAt!,
    });
  }
  return out.sort((a, b) => a.oldest.getTime() - b.oldest.getTime());
}

/** The roller's worklist: every sink with waiting batches, whether it is due and why. */
export async function readWorklist(prisma: PrismaClient, now = Date.now()): Promise<WorklistEntry[]> {
  return (await waitingSinks(prisma)).map((s) => worklistEntry(s, now));
}

export interface PendingBatch {
  batchId: string;
  receivedAt: Date;
  /** The ledger's size of the batch (its request bytes). */
  bytes: number;
}

/** A sink's waiting batches, oldest first. */
export function pendingBatches(prisma: PrismaClient, sinkId: string): Promise<PendingBatch[]> {
  return prisma.sinkBatch.findMany({
    where: { sinkId, state: 'pending' },
    orderBy: [{ receivedAt: 'asc' }, { batchId: 'asc' }],
    take: PENDING_READ_LIMIT,
    select: { batchId: true, receivedAt: true, bytes: true },
  });
}

export interface SinkStorage {
  blobBucket: string;
  tableBucket: string;
  /** The warehouse's read/write storage identity; its secret key sealed (open it with the deployment's keyring). */
  accessKeyId: string;
  sealedSecretKey: string;
}

/** The warehouse columns a SinkStorage is read from, and the reading. */
const STORAGE_COLUMNS = { blobBucket: true, tableBucket: true, storageAccessKey: true, storageSecretKey: true } as const;
const storageOf = (w: { blobBucket: string; tableBucket: string; storageAccessKey: string; storageSecretKey: string }): SinkStorage => ({
  blobBucket: w.blobBucket, tableBucket: w.tableBucket, accessKeyId: w.storageAccessKey, sealedSecretKey: w.storageSecretKey,
});

/** Where a sink's objects are, and the identity that writes them: its warehouse's buckets and storage keys. */
export async function sinkStorage(prisma: PrismaClient, sinkId: string): Promise<SinkStorage> {
  const { warehouseId } = await prisma.sink.findUniqueOrThrow({ where: { id: sinkId }, select: { warehouseId: true } });
  return storageOf(await prisma.warehouse.findUniqueOrThrow({ where: { id: warehouseId }, select: STORAGE_COLUMNS }));
}

/** Every sink, deleted ones too, that has written a reject file, with where its catalog keeps them; sinks of catalogs no longer live are left out (their buckets go with them). */
export async function sinksWithRejects(prisma: PrismaClient): Promise<Array<{ sinkId: string } & SinkStorage>> {
  const sinks = await prisma.sink.findMany({ where: { rejectFiles: { gt: 0 } }, select: { id: true, warehouseId: true } });
  if (!sinks.length) return [];
  const live = await prisma.warehouse.findMany({
    where: { id: { in: [...new Set(sinks.map((s) => s.warehouseId))] }, status: { in: ['provisioning', 'ready'] } },
    select: { id: true, ...STORAGE_COLUMNS },
  });
  const byId = new Map(live.map((w) => [w.id, storageOf(w)]));
  return sinks.flatMap((s) => {
    const storage = byId.get(s.warehouseId);
    return storage ? [{ sinkId: s.id, ...storage }] : [];
  });
}

export async function sinkExists(prisma: PrismaClient, sinkId: string): Promise<boolean> {
  return (await prisma.sink.findUnique({ where: { id: sinkId }, select: { id: true } })) !== null;
}

/**
 * Records one roll of an existing sink, in one transaction: its batches
 * marked committed (with their snapshot) or discarded — only batches still
 * waiting, so a report sent twice counts once — the roll and its rejects
 * counted, the sink disabled if the roll says so (only a live sink: a deleted
 * one stays deleted), and ledger rows older than LEDGER_DAYS pruned.
 */
export function recordRoll(prisma: PrismaClient, sinkId: string, r: RollReport): Promise<RollRecorded> {
  return prisma.$transaction(async (tx) => {
    const now = new Date();
    const committed = r.batch_ids.length
      ? (await tx.sinkBatch.updateMany({
        where: { sinkId, batchId: { in: r.batch_ids }, state: 'pending' },
        data: { state: 'committed', committedAt: now, snapshotId: r.snapshot_id },
      })).count
      : 0;
    const discarded = r.discarded_batch_ids.length
      ? (await tx.sinkBatch.updateMany({
        where: { sinkId, batchId: { in: r.discarded_batch_ids }, state: 'pending' },
        data: { state: 'discarded', committedAt: now },
      })).count
      : 0;
    const lastRoll = r.batch_ids.length
      ? { at: now.toISOString(), batches: committed, rows: r.rows, rejected_rows: r.rejected_rows, snapshot_id: r.snapshot_id, seconds: r.seconds }
      : undefined;
    let { state } = await tx.sink.update({
      where: { id: sinkId },
      data: {
        lastRoll, rejectedRows: { increment: r.rejected_rows }, rejectFiles: { increment: r.reject_file ? 1 : 0 },
        ...(r.table_changes_applied ? { tableChangesApplied: true } : {}),
      },
      select: { state: true },
    });
    if (r.reject_summary && r.rejected_rows > 0) {
      await prependRecentRejects(tx, sinkId, {
        at: now.toISOString(), rows: r.rejected_rows, snapshot_id: r.snapshot_id, file: r.reject_file ?? null, ...r.reject_summary,
      });
    }
    if (r.disabled_reason && state === 'active') {
      await tx.sink.updateMany({ where: { id: sinkId, state: 'active' }, data: { state: 'disabled', disabledReason: r.disabled_reason } });
      state = 'disabled';
    }
    const pruned = (await tx.sinkBatch.deleteMany({
      where: { sinkId, state: { in: ['committed', 'discarded'] }, committedAt: { lt: new Date(now.getTime() - LEDGER_DAYS * 86_400_000) } },
    })).count;
    return { committed, discarded, pruned, state };
  }, { maxWait: 10_000, timeout: 30_000 });
}

/**
 * Puts a roll's rejects in front of the sink's recent rejects and keeps the
 * newest RECENT_REJECT_ROLLS (anything but an array stored there counts as
 * none). One UPDATE reads the list it changes under its own row lock, so
 * rolls recorded at once each land, with or without the roller's sink lock.
 * Raw SQL: Prisma writes a JSON column only whole.
 */
async function prependRecentRejects(tx: Prisma.TransactionClient, sinkId: string, roll: RecentRejectRoll): Promise<void> {
  await tx.$executeRaw`
    UPDATE sinks SET recent_rejects = (
      SELECT jsonb_agg(t.entry ORDER BY t.n)
        FROM jsonb_array_elements(jsonb_build_array(${JSON.stringify(roll)}::jsonb)
               || CASE WHEN jsonb_typeof(sinks.recent_rejects) = 'array' THEN sinks.recent_rejects ELSE '[]'::jsonb END) WITH ORDINALITY AS t(entry, n)
       WHERE t.n <= ${RECENT_REJECT_ROLLS})
     WHERE id = ${sinkId}`;
}
