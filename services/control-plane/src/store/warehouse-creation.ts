import type { SqlClient } from '@floe/http';
import type { WarehouseStatus } from './warehouses';

// The `creating` phase of a warehouse row. A create first claims the row in a
// short transaction (inserting it, or taking over a claim that was released
// or whose lease ran out); only the claimant makes the storage, renewing the
// lease as it goes, and its last step clears the claim while it still holds
// it. Lease times are the database's clock, so replicas agree on them.

/** The row that holds a name (or its bucket) in the caller's scope, live rows before deleted ones. */
export interface NameHolder {
  id: string;
  status: WarehouseStatus;
  tableBucket: string;
  blobBucket: string;
  /** Whether a request holds the creation now: a claim whose lease has not run out. */
  claimHeld: boolean;
}

/** Serializes the creates of one scope (an organisation, or an owner's projects outside any): names, limits and quota are checked under it. */
export async function lockCreationScope(tx: SqlClient, scopeKey: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`warehouses:${scopeKey}`]);
}

export async function nameHolder(
  tx: SqlClient,
  w: { name: string; orgId: string | null; ownerId: string; tableBucket: string },
): Promise<NameHolder | null> {
  const scope = w.orgId ? 'w.org_id = $2' : 'w.org_id IS NULL AND p.owner_id = $2';
  const { rows } = await tx.query<{ id: string; status: WarehouseStatus; table_bucket: string; blob_bucket: string; claim_held: boolean }>(
    `SELECT w.id, w.status, w.table_bucket, w.blob_bucket,
            (w.creation_claim IS NOT NULL AND w.creation_lease_until > now()) AS claim_held
       FROM warehouses w LEFT JOIN projects p ON p.id = w.project_id
      WHERE (w.name = $1 AND ${scope} AND w.status IN ('creating', 'provisioning', 'ready', 'deleting'))
         OR w.table_bucket = $3
      ORDER BY (w.status = 'deleted'), w.created_at DESC
      LIMIT 1`,
    [w.name, w.orgId ?? w.ownerId, w.tableBucket]);
  const r = rows[0];
  return r ? { id: r.id, status: r.status, tableBucket: r.table_bucket, blobBucket: r.blob_bucket, claimHeld: r.claim_held } : null;
}

/** Warehouses that count against a project's limit, leaving out one row (the creating row being taken over). */
export async function countedInProject(tx: SqlClient, projectId: string, except: string | null = null): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM warehouses
      WHERE project_id = $1 AND status IN ('creating', 'provisioning', 'ready') AND id IS DISTINCT FROM $2`,
    [projectId, except]);
  return rows[0].n;
}

export interface ClaimedRow {
  id: string;
  name: string;
  projectId: string;
  orgId: string | null;
  tableBucket: string;
  blobBucket: string;
  formatVersion: 2 | 3;
  storageUid: string;
  storageRoUid: string;
  roleName: string;
  createdBy: string;
}

/** Inserts a `creating` row claimed by `claim` for `leaseSeconds`. */
export async function insertClaimed(tx: SqlClient, w: ClaimedRow, claim: string, leaseSeconds: number): Promise<void> {
  await tx.query(
    `INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, default_format_version, status,
       storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, created_by,
       creation_claim, creation_lease_until)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'creating', $8, '', '', $9, '', '', $10, $11, $12, now() + make_interval(secs => $13))`,
    [w.id, w.name, w.projectId, w.orgId, w.tableBucket, w.blobBucket, w.formatVersion, w.storageUid, w.storageRoUid, w.roleName, w.createdBy,
      claim, leaseSeconds]);
}

/**
 * Takes over a `creating` row whose claim was released or ran out: it is now
 * the new request's, in its project, with its creator and format version.
 * False when the row is no longer a free `creating` one.
 */
export async function takeOverClaim(
  tx: SqlClient, id: string,
  w: { projectId: string; createdBy: string; formatVersion: 2 | 3 }, claim: string, leaseSeconds: number,
): Promise<boolean> {
  const { rowCount } = await tx.query(
    `UPDATE warehouses SET creation_claim = $2, creation_lease_until = now() + make_interval(secs => $3),
            project_id = $4, created_by = $5, default_format_version = $6
      WHERE id = $1 AND status = 'creating' AND (creation_claim IS NULL OR creation_lease_until <= now())`,
    [id, claim, leaseSeconds, w.projectId, w.createdBy, w.formatVersion]);
  return rowCount === 1;
}

/** Extends the claim's lease; false when the claim is no longer this request's (it ran out and was taken over). */
export async function renewClaim(db: SqlClient, id: string, claim: string, leaseSeconds: number): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE warehouses SET creation_lease_until = now() + make_interval(secs => $3)
      WHERE id = $1 AND status = 'creating' AND creation_claim = $2`,
    [id, claim, leaseSeconds]);
  return rowCount === 1;
}

/** Lets the claim go at once (a failed attempt), so a retry need not wait for the lease. */
export async function releaseClaim(db: SqlClient, id: string, claim: string): Promise<void> {
  await db.query(
    `UPDATE warehouses SET creation_claim = NULL, creation_lease_until = NULL WHERE id = $1 AND status = 'creating' AND creation_claim = $2`,
    [id, claim]);
}

/**
 * Ends the `creating` phase as `ready` or `provisioning` (with the window the
 * retry job keeps probing in), only while `claim` still holds the row. False
 * when it does not: another request took the creation over and finishes it.
 */
export async function finishCreation(
  db: SqlClient, id: string, claim: string, status: 'ready' | 'provisioning', provisionWindowSeconds: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE warehouses SET status = $3, creation_claim = NULL, creation_lease_until = NULL,
            provision_until = CASE WHEN $3 = 'provisioning' THEN now() + make_interval(secs => $4) ELSE NULL END
      WHERE id = $1 AND status = 'creating' AND creation_claim = $2`,
    [id, claim, status, provisionWindowSeconds]);
  return rowCount === 1;
}

/** The organisation's handle, the owner part of its bucket names. */
export async function orgHandle(db: SqlClient, orgId: string): Promise<string> {
  const { rows } = await db.query<{ handle: string }>(`SELECT handle FROM organizations WHERE id = $1`, [orgId]);
  return rows[0].handle;
}
