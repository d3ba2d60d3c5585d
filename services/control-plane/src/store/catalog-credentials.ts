import type { SqlClient } from '@floe/http';

// Catalog credential rows (`catalog_credentials`): written by the control
// plane (issue at creation, rotate) and the teardown worker (retiring an old
// read-only key). A warehouse's credentials change one writer at a time: a
// writer first takes the warehouse row's lock (lockWarehouseForCredentials).

export interface CredentialRow {
  clientId: string;
  access: 'read' | 'write';
}

export interface NewCredential {
  clientId: string;
  access: 'read' | 'write';
  secretHash: string;
  secretNonce: string;
}

/**
 * Locks the warehouse row until the transaction ends, so rotations of one
 * warehouse run one after another and each sees the pair the one before
 * issued. FOR NO KEY UPDATE: it does not block inserts that reference the row
 * (grants, samples) the way FOR UPDATE would. False when there is no such row.
 */
export async function lockWarehouseForCredentials(tx: SqlClient, warehouseId: string): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM warehouses WHERE id = $1 FOR NO KEY UPDATE`, [warehouseId]);
  return rows.length > 0;
}

/** The warehouse's unrevoked credentials, newest first. */
export async function liveCredentials(db: SqlClient, warehouseId: string): Promise<CredentialRow[]> {
  const { rows } = await db.query<{ client_id: string; access: 'read' | 'write' }>(
    `SELECT client_id, access FROM catalog_credentials WHERE warehouse_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, client_id`,
    [warehouseId]);
  return rows.map((r) => ({ clientId: r.client_id, access: r.access }));
}

/**
 * Inserts credentials; one already there (a resumed creation issuing the same
 * ids) is left as it is. created_at is the clock at the insert, not the
 * transaction's start: a rotation that waited for the lock must still come out
 * newer than the one it waited for, as "newest first" readers assume.
 */
export async function insertCredentials(db: SqlClient, warehouseId: string, creds: NewCredential[]): Promise<void> {
  if (!creds.length) return;
  const values: unknown[] = [warehouseId];
  const tuples = creds.map((c) => {
    values.push(c.clientId, c.access, c.secretHash, c.secretNonce);
    const n = values.length;
    return `($${n - 3}, $1, $${n - 2}, $${n - 1}, $${n}, clock_timestamp())`;
  });
  await db.query(
    `INSERT INTO catalog_credentials (client_id, warehouse_id, access, secret_hash, secret_nonce, created_at)
     VALUES ${tuples.join(', ')} ON CONFLICT (client_id) DO NOTHING`,
    values);
}

export async function revokeCredentials(db: SqlClient, clientIds: string[]): Promise<void> {
  if (!clientIds.length) return;
  await db.query(`UPDATE catalog_credentials SET revoked_at = now() WHERE client_id = ANY($1::text[]) AND revoked_at IS NULL`, [clientIds]);
}

/** The newest unrevoked credential of one access level with the nonce its secret derives from. */
export async function currentCredential(db: SqlClient, warehouseId: string, access: 'read' | 'write'): Promise<{ clientId: string; secretNonce: string | null } | null> {
  const { rows } = await db.query<{ client_id: string; secret_nonce: string | null }>(
    `SELECT client_id, secret_nonce FROM catalog_credentials
      WHERE warehouse_id = $1 AND access = $2 AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    [warehouseId, access]);
  return rows[0] ? { clientId: rows[0].client_id, secretNonce: rows[0].secret_nonce } : null;
}
