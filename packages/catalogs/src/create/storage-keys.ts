import type { Keyring } from '@floe/db/sealed';
import type { Db } from '@floe/db';
import { STORAGE_POLICY_VERSION, type StoreCredentials } from '@floe/storage';

// A warehouse's storage identities' keys. The secret keys are sealed with the
// deployment's data key (packages/db/src/sealed.ts) on the way in, and opened
// only where the control plane acts as the warehouse in the object store (the
// storage probe, reading a table's metadata files, the blob routes), never for
// a listing of warehouses.

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
      // Provisioning made everything with the current policies.
      storagePolicyVersion: STORAGE_POLICY_VERSION,
    },
  });
}

/** One identity's keys: `write` the warehouse's own identity (owner of what it writes), `read` its `-ro` twin. */
async function identityKeys(db: Db, keyring: Keyring, warehouseId: string, access: 'read' | 'write'): Promise<StoreCredentials> {
  const row = await db.warehouse.findUnique({
    where: { id: warehouseId },
    select: { storageAccessKey: true, storageSecretKey: true, storageRoAccessKey: true, storageRoSecretKey: true },
  });
  if (!row) throw new Error(`warehouse ${warehouseId} has no row`);
  return access === 'write'
    ? { accessKeyId: row.storageAccessKey, secretAccessKey: keyring.open(row.storageSecretKey) }
    : { accessKeyId: row.storageRoAccessKey, secretAccessKey: keyring.open(row.storageRoSecretKey) };
}

/** The read/write identity's keys: the warehouse's own identity, owner of what it writes in its buckets. */
export const readWriteKeys = (db: Db, keyring: Keyring, warehouseId: string) => identityKeys(db, keyring, warehouseId, 'write');

/** The read-only identity's keys (`t-<uuid>-ro`): the narrowest the warehouse has, for listing and presigned reads. */
export const readOnlyKeys = (db: Db, keyring: Keyring, warehouseId: string) => identityKeys(db, keyring, warehouseId, 'read');
