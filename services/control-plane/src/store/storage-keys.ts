import type { Keyring } from '@floe/db/sealed';
import type { SqlClient } from '@floe/http';
import type { StoreCredentials } from '@floe/storage';

// A warehouse's storage identities' keys. The secret keys are sealed with the
// deployment's data key (packages/db/src/sealed.ts) on the way in, and opened
// only where the control plane acts as the warehouse in the object store (the
// storage probe, reading a table's metadata files), never for a listing.

export interface StorageKeys {
  rw: StoreCredentials;
  ro: StoreCredentials;
  roleArn: string;
}

export async function saveStorageKeys(db: SqlClient, keyring: Keyring, warehouseId: string, k: StorageKeys): Promise<void> {
  await db.query(
    `UPDATE warehouses SET storage_access_key = $2, storage_secret_key = $3, storage_ro_access_key = $4, storage_ro_secret_key = $5, role_arn = $6
      WHERE id = $1`,
    [warehouseId, k.rw.accessKeyId, keyring.seal(k.rw.secretAccessKey), k.ro.accessKeyId, keyring.seal(k.ro.secretAccessKey), k.roleArn],
  );
}

/** The read/write identity's keys: the warehouse's own identity, owner of what it writes in its buckets. */
export async function readWriteKeys(db: SqlClient, keyring: Keyring, warehouseId: string): Promise<StoreCredentials> {
  const { rows } = await db.query<{ storage_access_key: string; storage_secret_key: string }>(
    `SELECT storage_access_key, storage_secret_key FROM warehouses WHERE id = $1`, [warehouseId]);
  if (!rows[0]) throw new Error(`warehouse ${warehouseId} has no row`);
  return { accessKeyId: rows[0].storage_access_key, secretAccessKey: keyring.open(rows[0].storage_secret_key) };
}
