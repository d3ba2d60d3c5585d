import type { Keyring } from '@floe/db/sealed';
import type { Db } from '@floe/db';
import { probeWarehouse, type ProbeResult, type StorageProvider } from '@floe/storage';
import { readWriteKeys, saveStorageKeys } from './storage-keys';

// A warehouse's storage: both buckets, the read/write and read-only
// identities confined to them, and the role that vends table sessions. Every
// step is idempotent, so a creation interrupted by a storage outage is
// finished by the retry with the same warehouse id.

export interface WarehouseStorageSpec {
  id: string;
  name: string;
  tableBucket: string;
  blobBucket: string;
}

export const storageUidOf = (warehouseId: string) => `t-${warehouseId}`;
export const roleNameOf = (warehouseId: string) => `w-${warehouseId}`;

export async function provisionStorage(storage: StorageProvider, db: Db, keyring: Keyring, w: WarehouseStorageSpec): Promise<void> {
  const uid = storageUidOf(w.id);
  const roleName = roleNameOf(w.id);
  const buckets = [w.tableBucket, w.blobBucket];
  await storage.ensureBucket(w.tableBucket);
  await storage.ensureBucket(w.blobBucket);
  const rw = await storage.ensureIdentity({ uid, displayName: `catalog ${w.name}`, buckets, access: 'write', assumableRole: roleName });
  const ro = await storage.ensureIdentity({ uid: `${uid}-ro`, displayName: `catalog ${w.name} (read-only)`, buckets, access: 'read', assumableRole: roleName });
  const { arn } = await storage.ensureRole({ roleName, trustedUids: [uid, `${uid}-ro`], buckets });
  await saveStorageKeys(db, keyring, w.id, { rw, ro, roleArn: arn });
}

/** The spec's storage probe: a tenant-signed PUT and DELETE of an empty object in each bucket. */
export async function probeStorage(storage: StorageProvider, db: Db, keyring: Keyring, w: Omit<WarehouseStorageSpec, 'name'>): Promise<ProbeResult> {
  return probeWarehouse(storage, await readWriteKeys(db, keyring, w.id), w);
}

export function probeView(p: ProbeResult, tableBucket: string, blobBucket: string) {
  const state = (bucket: string) => {
    const b = p.buckets.find((x) => x.bucket === bucket);
    return b?.ok ? 'ok' : 'refused';
  };
  return { table: state(tableBucket), blob: state(blobBucket), seconds: p.seconds };
}
