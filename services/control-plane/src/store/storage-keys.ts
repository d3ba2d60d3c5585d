import type { Keyring } from '@floe/db/sealed';
import type { Db } from '@floe/db';
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

export async function saveStorageKeys(db: Db, keyring: Keyring, warehouseId: string, k: StorageKeys): Promise<void> {
  await db.warehouse.updateMany({
    where: { id: warehouseId },
    data: {
      storageAccessKey: k.rw.accessKeyId, storageSecretKey: keyring.seal(k.rw.secretAccessKey),
      storageRoAccessKey: k.ro.accessKeyId, storageRoSecretKey: keyring.seal(k.ro.secretAccessKey), roleArn: k.roleArn,
    },
  });
}

/** The read/write identity's keys: the warehouse's own identity, owner of what it writes in its buckets. */
export async function readWriteKeys(db: Db, keyring: Keyring, warehouseId: string): Promise<StoreCredentials> {
  const row = await db.warehouse.findUnique({ where: { id: warehouseId }, select: { storageAccessKey: true, storageSecretKey: true } });
  if (!row) throw new Error(`warehouse ${warehouseId} has no row`);
  return { accessKeyId: row.storageAccessKey, secretAccessKey: keyring.open(row.storageSecretKey) };
}
