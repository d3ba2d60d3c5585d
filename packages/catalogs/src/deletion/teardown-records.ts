import { dropHeldGrants } from '@floe/accounts';
import { dropWarehouseRows } from '@floe/catalog-store/teardown';
import { endSinksOfWarehouse } from '@floe/ingest/sink-store';
import { Prisma, type PrismaClient } from '@floe/db';
import { tombstoneOf, type TeardownError, type TeardownStep, type Tombstone } from './warehouse-deletion';

// The rows a catalog's teardown changes, each step committed with the step it
// reached (`teardown_step`, and the tombstone's counts), so a worker that dies
// mid-job resumes where the last one stopped. The catalog's own rows
// (`catalog_tables`, `catalog_namespaces`) are removed by their one writer,
// packages/catalog-store, inside this step's transaction: the catalog refuses
// every credential of a deleted catalog, so nothing can act through it any
// more, and its buckets go next.

export interface TeardownView {
  id: string;
  name: string;
  orgId: string | null;
  status: string;
  step: TeardownStep | null;
  /** The grace period is over, on the database's clock. */
  due: boolean;
  /** A restore claimed the catalog and has not finished for 5 minutes (it died): teardown may take over. */
  restoreLapsed: boolean;
  teardownAfter: Date | null;
  deletedBy: string | null;
  storageUid: string;
  storageRoUid: string;
  roleName: string;
  tombstone: Tombstone;
}

export async function teardownView(prisma: PrismaClient, id: string): Promise<TeardownView | null> {
  // Raw: `due` is tested on the database's clock, as it was set.
  const rows = await prisma.$queryRaw<Array<{
    id: string; name: string; org_id: string | null; status: string; teardown_step: TeardownStep | null; due: boolean; lapsed: boolean;
    teardown_after: Date | null; deleted_by: string | null; storage_uid: string; storage_ro_uid: string; role_name: string; tombstone: unknown;
  }>>`
    SELECT id, name, org_id, status, teardown_step, COALESCE(teardown_after <= now(), false) AS due,
           COALESCE(teardown_after + interval '5 minutes' <= now(), false) AS lapsed,
           teardown_after, deleted_by, storage_uid, storage_ro_uid, role_name, tombstone
      FROM warehouses WHERE id = ${id}`;
  const r = rows[0];
  const tombstone = r ? tombstoneOf(r.tombstone) : null;
  if (!r || !tombstone) return null;
  return {
    id: r.id, name: r.name, orgId: r.org_id, status: r.status, step: r.teardown_step, due: r.due, restoreLapsed: r.lapsed,
    teardownAfter: r.teardown_after, deletedBy: r.deleted_by, storageUid: r.storage_uid, storageRoUid: r.storage_ro_uid, roleName: r.role_name, tombstone,
  };
}

/** Teardown begins: queued (or a lapsed restore's claim) → tables, only once the grace period is over. False when it cannot. */
export async function beginTeardown(prisma: PrismaClient, id: string, from: 'queued' | 'restoring'): Promise<boolean> {
  // Raw: the grace is tested on the database's clock.
  const n = await prisma.$executeRaw`
    UPDATE warehouses SET teardown_step = 'tables'
     WHERE id = ${id} AND status = 'deleting' AND teardown_step = ${from} AND teardown_after <= now()`;
  return n === 1;
}

/**
 * Drops every table, view and namespace of the catalog from its store
 * (packages/catalog-store's dropWarehouseRows, which counts them: a table
 * outside the catalog's table bucket is counted as refused) and records the
 * counts in the tombstone, in one transaction.
 */
export async function dropCatalogTables(prisma: PrismaClient, id: string, tableBucket: string): Promise<{ tables: number; views: number; refused: number }> {
  return prisma.$transaction(async (tx) => {
    const counts = await dropWarehouseRows(tx, id, tableBucket);
    await patchTombstone(tx, id, { tables_dropped: counts.tables, tables_refused: counts.refused, views_dropped: counts.views }, 'storage');
    return counts;
  });
}

/** Records one storage step's result in the tombstone. */
export async function recordStorageStep(prisma: PrismaClient, id: string, step: string, result: unknown): Promise<void> {
  // Raw: jsonb_set writes one key of the tombstone's storage object in place (JSON null until the first step).
  await prisma.$executeRaw`
    UPDATE warehouses SET tombstone = jsonb_set(tombstone, '{storage}',
             (CASE WHEN jsonb_typeof(tombstone->'storage') = 'object' THEN tombstone->'storage' ELSE '{}'::jsonb END) || ${JSON.stringify({ [step]: result })}::jsonb)
     WHERE id = ${id} AND status = 'deleting'`;
}

/** Records a failed attempt in the tombstone (`teardown_error`), while the catalog is still being torn down. */
export async function recordTeardownError(prisma: PrismaClient, id: string, error: TeardownError): Promise<void> {
  // Raw: jsonb concatenation sets one key of the tombstone in place.
  await prisma.$executeRaw`
    UPDATE warehouses SET tombstone = tombstone || ${JSON.stringify({ teardown_error: error })}::jsonb WHERE id = ${id} AND status = 'deleting'`;
}

export interface PastGrace {
  id: string;
  name: string;
  step: TeardownStep | null;
  teardownAfter: Date;
  teardownError: TeardownError | null;
}

/** Catalogs still being deleted whose grace period is over (on the database's clock): the teardown sweep's worklist. */
export async function deletionsPastGrace(prisma: PrismaClient): Promise<PastGrace[]> {
  // Raw: the grace is tested on the database's clock, as it was set.
  const rows = await prisma.$queryRaw<Array<{ id: string; name: string; teardown_step: TeardownStep | null; teardown_after: Date; teardown_error: TeardownError | null }>>`
    SELECT id, name, teardown_step, teardown_after, tombstone->'teardown_error' AS teardown_error
      FROM warehouses WHERE status = 'deleting' AND teardown_after <= now() ORDER BY teardown_after, id`;
  return rows.map((r) => ({ id: r.id, name: r.name, step: r.teardown_step, teardownAfter: r.teardown_after, teardownError: r.teardown_error ?? null }));
}

/**
 * The end, in one transaction: status `deleted`, the tombstone complete (an
 * earlier attempt's `teardown_error` cleared), the bucket names released (a
 * new catalog may take them; the tombstone keeps them), held grants and credentials gone, the catalog's sinks deleted with
 * their waiting batches discarded (their objects went with the blob bucket),
 * `warehouse.delete_complete` audited. False when another worker finished first.
 */
export async function finishTeardown(prisma: PrismaClient, w: TeardownView, storage: Record<string, unknown>): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<Array<{ status: string }>>`SELECT status FROM warehouses WHERE id = ${w.id} FOR UPDATE`;
    if (locked[0]?.status !== 'deleting') return false;
    const completedAt = new Date();
    // Raw: jsonb concatenation completes the tombstone in place; the released names cannot be a bucket's (no '/' in bucket names).
    await tx.$executeRaw`
      UPDATE warehouses SET status = 'deleted', teardown_step = 'done',
             table_bucket = ${`deleted/${w.id}/table`}, blob_bucket = ${`deleted/${w.id}/blob`},
             tombstone = tombstone || ${JSON.stringify({ storage, storage_complete: true, completed_at: completedAt.toISOString(), teardown_error: null })}::jsonb
       WHERE id = ${w.id}`;
    await dropHeldGrants(tx, w.id);
    await tx.catalogCredential.updateMany({ where: { warehouseId: w.id, revokedAt: null }, data: { revokedAt: completedAt } });
    await endSinksOfWarehouse(tx, w.id, completedAt);
    const t = w.tombstone;
    await tx.auditEvent.create({
      data: {
        action: 'warehouse.delete_complete', actorId: w.deletedBy, orgId: w.orgId, targetType: 'warehouse', targetId: w.id,
        data: {
          name: w.name, tables_dropped: t.tables_dropped, tables_refused: t.tables_refused, storage, storage_complete: true,
          grants_removed: t.grants_removed, usage_samples_removed: t.usage_samples_removed, reason: t.reason,
        } as Prisma.InputJsonObject,
      },
    });
    return true;
  });
}

async function patchTombstone(tx: Prisma.TransactionClient, id: string, patch: Record<string, unknown>, step: TeardownStep): Promise<void> {
  // Raw: jsonb concatenation sets these keys of the tombstone in place.
  await tx.$executeRaw`
    UPDATE warehouses SET tombstone = tombstone || ${JSON.stringify(patch)}::jsonb, teardown_step = ${step} WHERE id = ${id}`;
}
