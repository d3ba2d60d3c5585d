import { holdGrantsOf } from '@floe/accounts';
import type { PrismaClient } from '@floe/db';
import { StorageError, type StorageProvider } from '@floe/storage';

// A catalog's deletion as the database records it: the one transaction that
// takes it out of every caller's view (DELETE /v1/warehouses/{id} in the
// control plane, and the erasure of an organisation left without members in
// the teardown worker), and the tombstone's shape that teardown fills in and
// GET /v1/warehouses/{id} answers with.
//
// In one transaction, under the warehouse row's lock: status `deleting`,
// grants moved to `held_warehouse_grants` (restore moves them back), usage
// samples removed, the public mark cleared, `warehouse.delete` audited. Of
// twenty concurrent deletions one does this; the others wait for the lock and
// find the catalog `deleting`.

export type TeardownStep = 'queued' | 'restoring' | 'tables' | 'storage' | 'done';

/** What GET /v1/warehouses/{id} answers about a deleted catalog (null fields: not reached yet). */
export interface Tombstone {
  /** The status restore brings back. */
  previous_status: 'ready' | 'provisioning';
  was_public: boolean;
  reason: 'request' | 'org_erasure';
  /** Both buckets' bytes (table + blob) as last measured: at the deletion itself when the store answered, else the latest usage sample. */
  bytes_at_deletion: number | null;
  measured_at: string | null;
  grants_removed: number;
  usage_samples_removed: number;
  tables_dropped: number | null;
  /** Tables whose files teardown did not purge (their location was not inside the catalog's own bucket). */
  tables_refused: number | null;
  /** The storage steps done so far, by name (`deleted`, `absent`, or a count). */
  storage: Record<string, unknown> | null;
  storage_complete: boolean | null;
  completed_at: string | null;
  /** The last failed attempt of teardown; null until one fails, and again once teardown ends (absent on older rows). */
  teardown_error?: TeardownError | null;
  /** The buckets the catalog had: the row's own columns are released once they are removed. */
  buckets: { table: string; blob: string };
}

/** A failed teardown attempt, as the teardown worker records it (services/teardown-worker/src/teardown.ts). */
export interface TeardownError {
  /** The store's refusal as the storage layer words it (never its internals), or that an internal error was logged. */
  message: string;
  /** Where it failed: `tables`, or a storage step (`uploaders`, `identity`, `identity_ro`, `role`, `table_bucket`, `blob_bucket`). */
  step: string;
  /** Attempts of the current teardown job that have failed. */
  attempts: number;
  failed_at: string;
  /** The job used up its retries; the hourly teardown sweep queues it again. */
  gave_up: boolean;
}

export interface DeletedWarehouse {
  id: string;
  name: string;
  projectId: string | null;
  orgId: string | null;
  tableBucket: string;
  blobBucket: string;
  storageUid: string;
  storageRoUid: string;
  roleName: string;
  requestedAt: Date;
  teardownAfter: Date;
  tombstone: Tombstone;
}

export type BeginDeletion =
  | { outcome: 'deleting'; warehouse: DeletedWarehouse }
  | { outcome: 'in_progress' | 'deleted' | 'gone' };

/** Both buckets measured at the deletion (the store's own counters), which the tombstone keeps over the latest usage sample. */
export interface DeletionFootprint {
  tableBytes: number;
  blobBytes: number;
  measuredAt: Date;
}

/**
 * Measures a live catalog's two buckets for its tombstone, just before the
 * deletion: the store's own counters (RGW bucket stats, one admin call per
 * bucket, as the metering worker's samples read them — the cost does not grow
 * with objects), so `bytes_at_deletion` is what the buckets held then and not
 * the last hourly sample (which a catalog filled since its first sample
 * showed as 0). A bucket that does not exist (yet) counts as empty. Null when
 * the catalog is not live; a store failure throws (the caller falls back to
 * the latest sample).
 */
export async function measureForDeletion(prisma: PrismaClient, storage: StorageProvider, warehouseId: string): Promise<DeletionFootprint | null> {
  const w = await prisma.warehouse.findFirst({ where: { id: warehouseId, status: { in: ['ready', 'provisioning'] } }, select: { tableBucket: true, blobBucket: true } });
  if (!w) return null;
  const measuredAt = new Date();
  const bytesIn = (bucket: string) => storage.bucketReport(bucket).then((r) => r.bytes, (err: unknown) => {
    if (err instanceof StorageError && err.kind === 'not_found') return 0;
    throw err;
  });
  const [tableBytes, blobBytes] = await Promise.all([bytesIn(w.tableBucket), bytesIn(w.blobBucket)]);
  return { tableBytes, blobBytes, measuredAt };
}

export interface DeletionActor {
  principalId: string | null;
  kind: string | null;
  requestId: string | null;
  ip: string | null;
}

/**
 * Status `deleting` and everything that goes with it, in one transaction; the
 * outcome says who did it. `footprint`: the buckets measured just before
 * (measureForDeletion); without it (the store did not answer)
 * `bytes_at_deletion` is the latest usage sample's, which may be as old as
 * the hourly sweep.
 */
export async function beginDeletion(
  prisma: PrismaClient, warehouseId: string,
  o: { graceSeconds: number; reason: Tombstone['reason']; actor: DeletionActor; footprint?: DeletionFootprint | null },
): Promise<BeginDeletion> {
  return prisma.$transaction(async (tx) => {
    // Raw: the row lock serializes concurrent deletions (and a restore).
    const locked = await tx.$queryRaw<Array<{ status: string }>>`SELECT status FROM warehouses WHERE id = ${warehouseId} FOR UPDATE`;
    const status = locked[0]?.status;
    if (status === 'deleting') return { outcome: 'in_progress' as const };
    if (status === 'deleted') return { outcome: 'deleted' as const };
    if (status !== 'ready' && status !== 'provisioning') return { outcome: 'gone' as const };
    const w = await tx.warehouse.findUniqueOrThrow({ where: { id: warehouseId } });

    const sample = await tx.usageSample.findFirst({ where: { warehouseId }, orderBy: { measuredAt: 'desc' } });
    const last = o.footprint
      ? { bytes: o.footprint.tableBytes + o.footprint.blobBytes, at: o.footprint.measuredAt }
      : sample ? { bytes: Number(sample.tableBytes + sample.blobBytes), at: sample.measuredAt } : null;
    const grantsRemoved = await holdGrantsOf(tx, warehouseId);
    const { count: samplesRemoved } = await tx.usageSample.deleteMany({ where: { warehouseId } });
    const tombstone: Tombstone = {
      previous_status: status,
      was_public: w.publicSince !== null,
      reason: o.reason,
      bytes_at_deletion: last ? last.bytes : null,
      measured_at: last ? last.at.toISOString() : null,
      grants_removed: grantsRemoved,
      usage_samples_removed: samplesRemoved,
      tables_dropped: null,
      tables_refused: null,
      storage: null,
      storage_complete: null,
      completed_at: null,
      teardown_error: null,
      buckets: { table: w.tableBucket, blob: w.blobBucket },
    };
    // Raw: the times are the database's clock, as every lease and deadline of this row.
    const [times] = await tx.$queryRaw<Array<{ deleted_at: Date; teardown_after: Date }>>`
      UPDATE warehouses SET status = 'deleting', deleted_at = now(), deleted_by = ${o.actor.principalId},
             teardown_after = now() + make_interval(secs => ${o.graceSeconds}), teardown_step = 'queued',
             public_since = NULL, public_by = NULL, public_prefix = NULL, tombstone = ${JSON.stringify(tombstone)}::jsonb
       WHERE id = ${warehouseId} RETURNING deleted_at, teardown_after`;
    await tx.auditEvent.create({
      data: {
        action: 'warehouse.delete', actorId: o.actor.principalId, actorKind: o.actor.kind, orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        requestId: o.actor.requestId, ip: o.actor.ip,
        data: {
          name: w.name, project_id: w.projectId, reason: o.reason, grants_removed: grantsRemoved, usage_samples_removed: samplesRemoved,
          bytes_at_deletion: tombstone.bytes_at_deletion, was_public: tombstone.was_public, teardown_after: times.teardown_after.toISOString(),
        },
      },
    });
    return {
      outcome: 'deleting' as const,
      warehouse: {
        id: w.id, name: w.name, projectId: w.projectId, orgId: w.orgId, tableBucket: w.tableBucket, blobBucket: w.blobBucket,
        storageUid: w.storageUid, storageRoUid: w.storageRoUid, roleName: w.roleName,
        requestedAt: times.deleted_at, teardownAfter: times.teardown_after, tombstone,
      },
    };
  }, { maxWait: 10_000, timeout: 15_000 });
}

/** The tombstone of a row, or null when the row has none (a live catalog). */
export function tombstoneOf(json: unknown): Tombstone | null {
  return json && typeof json === 'object' && !Array.isArray(json) ? (json as Tombstone) : null;
}
