import { Prisma, type Db } from '@floe/db';

// The rows restore changes. Restore runs in two transactions around the
// storage steps: the first claims the catalog (`teardown_step` queued →
// restoring, under the row's lock, so teardown can no longer begin) for one
// request (`restore_claim`) until a lease ends (`restore_lease_until`, on the
// database's clock); the second brings it back only while that claim is
// still its own (grants out of the holding table, status as before the
// deletion, the tombstone and the claim cleared). A restore that fails hands
// its claim back (restoring → queued); one that died leaves it to lapse, and
// another restore takes it over then.

type Tx = Prisma.TransactionClient;

/**
 * The one rule of the restore grace period, on the database's clock: a
 * catalog can be restored while it is `deleting`, teardown has not begun
 * (`teardown_step` queued, or restoring: a restore's claim) and
 * `teardown_after` is ahead. `teardown_after` is set once, by the deletion
 * (packages/catalogs warehouse-deletion.ts: its time plus
 * FLOE_WAREHOUSE_DELETE_GRACE_SECONDS), and is what teardown waits for; so it
 * is also `restorable_until`. Restore's claim, the tombstone and the listing
 * of deleted catalogs (GET /v1/warehouses?include_deleted=true) all read this.
 * `alias` names the warehouses row in the caller's query.
 */
export function withinRestoreGrace(alias = 'warehouses'): Prisma.Sql {
  const w = Prisma.raw(alias);
  return Prisma.sql`(${w}.status = 'deleting' AND ${w}.teardown_step IN ('queued', 'restoring') AND COALESCE(${w}.teardown_after > now(), false))`;
}

export interface RestoreClaim {
  status: string | null;
  teardownStep: string | null;
  /** Still restorable by the grace rule (withinRestoreGrace): being deleted, teardown not begun, the grace period not ended. */
  withinGrace: boolean;
  /** Another restore holds the claim and its lease has not ended: it is under way. */
  restoreHeld: boolean;
}

/** Locks the warehouse row and reads where its deletion stands. */
export async function lockForRestore(tx: Tx, warehouseId: string): Promise<RestoreClaim> {
  // Raw: the row lock, and the grace and the lease tested on the database's clock.
  const rows = await tx.$queryRaw<Array<{ status: string; teardown_step: string | null; within: boolean; held: boolean }>>`
    SELECT status, teardown_step, ${withinRestoreGrace()} AS within,
           (teardown_step = 'restoring' AND COALESCE(restore_lease_until > now(), false)) AS held
      FROM warehouses WHERE id = ${warehouseId} FOR UPDATE`;
  const r = rows[0];
  return { status: r?.status ?? null, teardownStep: r?.teardown_step ?? null, withinGrace: r?.within ?? false, restoreHeld: r?.held ?? false };
}

/** The claim: `teardown_step` → restoring, held by `claim` for `leaseSeconds` (the row is locked by the caller). */
export async function claimRestore(tx: Tx, warehouseId: string, claim: string, leaseSeconds: number): Promise<void> {
  // Raw: the lease is set on the database's clock.
  await tx.$executeRaw`
    UPDATE warehouses SET teardown_step = 'restoring', restore_claim = ${claim}, restore_lease_until = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = ${warehouseId} AND status = 'deleting'`;
}

/** A failed restore gives its claim back (restoring → queued), unless it is no longer its own; whether it was. */
export async function handBackRestore(db: Db, warehouseId: string, claim: string): Promise<boolean> {
  const { count } = await db.warehouse.updateMany({
    where: { id: warehouseId, status: 'deleting', teardownStep: 'restoring', restoreClaim: claim },
    data: { teardownStep: 'queued', restoreClaim: null, restoreLeaseUntil: null },
  });
  return count === 1;
}

/** A live catalog that took the name meanwhile, in the same scope (organisation, or an owner's projects outside any). */
export async function liveNamesake(tx: Tx, w: { id: string; name: string; orgId: string | null; ownerId: string | null }): Promise<{ id: string } | null> {
  const scope = w.orgId ? { orgId: w.orgId } : w.ownerId ? { orgId: null, project: { ownerId: w.ownerId } } : null;
  if (!scope) return null;
  return tx.warehouse.findFirst({
    where: {
      name: w.name, id: { not: w.id }, status: { in: ['creating', 'provisioning', 'ready'] }, ...scope,
    },
    select: { id: true },
  });
}

/** Status as before the deletion, every deletion field and the claim cleared — only while `claim` still holds it; whether it did. */
export async function markRestored(tx: Tx, warehouseId: string, status: 'ready' | 'provisioning', claim: string): Promise<boolean> {
  const { count } = await tx.warehouse.updateMany({
    where: { id: warehouseId, status: 'deleting', teardownStep: 'restoring', restoreClaim: claim },
    data: {
      status, deletedAt: null, deletedBy: null, teardownAfter: null, teardownStep: null, tombstone: Prisma.DbNull,
      restoreClaim: null, restoreLeaseUntil: null,
    },
  });
  return count === 1;
}
