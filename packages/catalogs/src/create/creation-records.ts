import { Prisma, type Db } from '@floe/db';
import type { WarehouseStatus } from '../warehouses';

// The `creating` phase of a warehouse row. A create first claims the row in a
// short transaction (inserting it, or taking over a claim that was released
// or whose lease ran out); only the claimant makes the storage, renewing the
// lease as it goes, and its last step clears the claim while it still holds
// it. Lease times are the database's clock, so replicas agree on them: the
// statements that set or test a lease are raw for that reason (Prisma's
// values would be this process's clock).

type Tx = Prisma.TransactionClient;

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
export async function lockCreationScope(tx: Tx, scopeKey: string): Promise<void> {
  // Raw: Prisma has no advisory locks.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`warehouses:${scopeKey}`}))`;
}

export async function nameHolder(
  tx: Tx,
  w: { name: string; orgId: string | null; ownerId: string; tableBucket: string },
): Promise<NameHolder | null> {
  // Raw: the lease is tested on the database's clock.
  const rows = await tx.$queryRaw<Array<{ id: string; status: WarehouseStatus; table_bucket: string; blob_bucket: string; claim_held: boolean }>>`
    SELECT w.id, w.status, w.table_bucket, w.blob_bucket,
           (w.creation_claim IS NOT NULL AND w.creation_lease_until > now()) AS claim_held
      FROM warehouses w LEFT JOIN projects p ON p.id = w.project_id
     WHERE (w.name = ${w.name} AND ${w.orgId ? Prisma.sql`w.org_id = ${w.orgId}` : Prisma.sql`w.org_id IS NULL AND p.owner_id = ${w.ownerId}`}
            AND w.status IN ('creating', 'provisioning', 'ready', 'deleting'))
        OR w.table_bucket = ${w.tableBucket}
     ORDER BY (w.status = 'deleted'), w.created_at DESC
     LIMIT 1`;
  const r = rows[0];
  return r ? { id: r.id, status: r.status, tableBucket: r.table_bucket, blobBucket: r.blob_bucket, claimHeld: r.claim_held } : null;
}

/** A torn-down catalog that had this table bucket (its row released the name), while no other row holds it now; null when none did. */
export async function deletedOwnerOfBucket(db: Db, tableBucket: string): Promise<{ id: string; tableBucket: string; blobBucket: string } | null> {
  // Raw: the bucket names a torn-down catalog had are in its tombstone (JSON).
  const rows = await db.$queryRaw<Array<{ id: string; table_bucket: string; blob_bucket: string }>>`
    SELECT id, tombstone->'buckets'->>'table' AS table_bucket, tombstone->'buckets'->>'blob' AS blob_bucket FROM warehouses
     WHERE status = 'deleted' AND tombstone->'buckets'->>'table' = ${tableBucket}
       AND NOT EXISTS (SELECT 1 FROM warehouses l WHERE l.table_bucket = ${tableBucket})
     ORDER BY deleted_at DESC LIMIT 1`;
  return rows[0] ? { id: rows[0].id, tableBucket: rows[0].table_bucket, blobBucket: rows[0].blob_bucket } : null;
}

/** Warehouses that count against a project's limit, leaving out one row (the creating row being taken over). */
export function countedInProject(db: Db, projectId: string, except: string | null = null): Promise<number> {
  return db.warehouse.count({
    where: { projectId, status: { in: ['creating', 'provisioning', 'ready'] }, ...(except ? { id: { not: except } } : {}) },
  });
}

/** Live catalogs of the organisation, or outside one of the owner's projects; `except` is not counted. */
export function countedInScope(db: Db, scope: { orgId: string | null; ownerId: string | null }, except: string | null = null): Promise<number> {
  return db.warehouse.count({
    where: {
      ...(scope.orgId ? { orgId: scope.orgId } : { orgId: null, project: { ownerId: scope.ownerId ?? '' } }),
      status: { in: ['creating', 'provisioning', 'ready'] }, ...(except ? { id: { not: except } } : {}),
    },
  });
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
export async function insertClaimed(tx: Tx, w: ClaimedRow, claim: string, leaseSeconds: number): Promise<void> {
  // Raw: the lease is the database's clock.
  await tx.$executeRaw`
    INSERT INTO warehouses (id, name, project_id, org_id, table_bucket, blob_bucket, default_format_version, status,
      storage_uid, storage_access_key, storage_secret_key, storage_ro_uid, storage_ro_access_key, storage_ro_secret_key, role_name, created_by,
      creation_claim, creation_lease_until)
    VALUES (${w.id}, ${w.name}, ${w.projectId}, ${w.orgId}, ${w.tableBucket}, ${w.blobBucket}, ${w.formatVersion}, 'creating',
      ${w.storageUid}, '', '', ${w.storageRoUid}, '', '', ${w.roleName}, ${w.createdBy}, ${claim}, now() + make_interval(secs => ${leaseSeconds}))`;
}

/**
 * Takes over a `creating` row whose claim was released or ran out: it is now
 * the new request's, in its project, with its creator and format version.
 * False when the row is no longer a free `creating` one.
 */
export async function takeOverClaim(
  tx: Tx, id: string,
  w: { projectId: string; createdBy: string; formatVersion: 2 | 3 }, claim: string, leaseSeconds: number,
): Promise<boolean> {
  // Raw: compare-and-set on the lease, on the database's clock.
  const n = await tx.$executeRaw`
    UPDATE warehouses SET creation_claim = ${claim}, creation_lease_until = now() + make_interval(secs => ${leaseSeconds}),
           project_id = ${w.projectId}, created_by = ${w.createdBy}, default_format_version = ${w.formatVersion}
     WHERE id = ${id} AND status = 'creating' AND (creation_claim IS NULL OR creation_lease_until <= now())`;
  return n === 1;
}

/** Extends the claim's lease; false when the claim is no longer this request's (it ran out and was taken over). */
export async function renewClaim(db: Db, id: string, claim: string, leaseSeconds: number): Promise<boolean> {
  // Raw: the lease is the database's clock.
  const n = await db.$executeRaw`
    UPDATE warehouses SET creation_lease_until = now() + make_interval(secs => ${leaseSeconds})
     WHERE id = ${id} AND status = 'creating' AND creation_claim = ${claim}`;
  return n === 1;
}

/** Lets the claim go at once (a failed attempt), so a retry need not wait for the lease. */
export async function releaseClaim(db: Db, id: string, claim: string): Promise<void> {
  await db.warehouse.updateMany({ where: { id, status: 'creating', creationClaim: claim }, data: { creationClaim: null, creationLeaseUntil: null } });
}

/**
 * Ends the `creating` phase as `ready` or `provisioning` (with the window the
 * retry job keeps probing in), only while `claim` still holds the row. False
 * when it does not: another request took the creation over and finishes it.
 */
export async function finishCreation(
  db: Db, id: string, claim: string, status: 'ready' | 'provisioning', provisionWindowSeconds: number,
): Promise<boolean> {
  // Raw: the provisioning window is the database's clock.
  const n = await db.$executeRaw`
    UPDATE warehouses SET status = ${status}, creation_claim = NULL, creation_lease_until = NULL,
           provision_until = ${status === 'provisioning' ? Prisma.sql`now() + make_interval(secs => ${provisionWindowSeconds})` : Prisma.sql`NULL`}
     WHERE id = ${id} AND status = 'creating' AND creation_claim = ${claim}`;
  return n === 1;
}

/** The organisation's handle, the owner part of its bucket names. */
export async function orgHandle(db: Db, orgId: string): Promise<string> {
  const o = await db.organization.findUniqueOrThrow({ where: { id: orgId }, select: { handle: true } });
  return o.handle;
}
