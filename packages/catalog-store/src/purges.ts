import type { Pool } from 'pg';
import type { SqlClient } from '@floe/http';
import { withTransaction } from '@floe/http';

// The catalog's purge records (catalog_purges). This package is the one
// home of the catalog's rows: nothing else writes them (index.ts).
//
// DELETE …/tables/{table}?purgeRequested=true removes the table's row and
// records its location in one transaction; the purge loop then claims the
// record (SKIP LOCKED, so replicas share the work; a claim older than five
// minutes — a crashed or failing replica — is taken over) and finishes it
// with its outcome. An unfinished record still holds its location.
//
// Data access here is raw SQL over pg, not the Prisma client: the catalog's
// load and commit paths run named prepared statements (bench/catalog holds
// loads under a millisecond and commits near the storage floor), and a
// commit's transaction must tell a refused statement from one whose outcome
// is unknown by pg's own error classes (outcome.ts), which Prisma's errors hide.

export interface PurgeJob {
  id: string;
  warehouseId: string;
  location: string;
  tableIdent: string | null;
  requestedBy: string | null;
}

/** Drops the row and records the purge; false when the row was gone already (a concurrent drop won). */
export async function dropWithPurge(
  pool: Pool, t: { id: string; warehouseId: string; location: string; tableIdent: string; requestedBy: string },
): Promise<boolean> {
  return withTransaction(pool, async (client) => {
    const dropped = await client.query(`DELETE FROM catalog_tables WHERE id = $1`, [t.id]);
    if ((dropped.rowCount ?? 0) === 0) return false;
    await client.query(
      `INSERT INTO catalog_purges (warehouse_id, location, table_ident, requested_by) VALUES ($1, $2, $3, $4)`,
      [t.warehouseId, t.location, t.tableIdent, t.requestedBy],
    );
    return true;
  });
}

/**
 * Claims the oldest purge nobody is working on; null when there is none. A
 * catalog being deleted is skipped: its identity is suspended, and within the
 * grace period it may be restored (its purges then go on); once torn down,
 * its purges are finished as refused (its buckets went with it).
 */
export async function claimPurge(db: SqlClient): Promise<PurgeJob | null> {
  const { rows } = await db.query<{ id: string; warehouse_id: string; location: string; table_ident: string | null; requested_by: string | null }>(
    `UPDATE catalog_purges SET claimed_at = now()
      WHERE id = (SELECT id FROM catalog_purges
                   WHERE done_at IS NULL AND (claimed_at IS NULL OR claimed_at < now() - interval '5 minutes')
                     AND NOT EXISTS (SELECT 1 FROM warehouses w WHERE w.id = catalog_purges.warehouse_id AND w.status = 'deleting')
                   ORDER BY requested_at LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING id, warehouse_id, location, table_ident, requested_by`,
  );
  const r = rows[0];
  return r ? { id: String(r.id), warehouseId: r.warehouse_id, location: r.location, tableIdent: r.table_ident, requestedBy: r.requested_by } : null;
}

/** `outcome` is `purged` or `refused: <why>`; `objects` how many were deleted. */
export async function finishPurge(db: SqlClient, id: string, outcome: string, objects: number): Promise<void> {
  await db.query(`UPDATE catalog_purges SET done_at = now(), objects = $2, outcome = $3 WHERE id = $1`, [id, objects, outcome]);
}
