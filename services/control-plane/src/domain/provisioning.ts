import type { SqlClient } from '@floe/http';
import type { ProbeResult, StorageProvider } from '@floe/storage';

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

export async function provisionStorage(storage: StorageProvider, db: SqlClient, w: WarehouseStorageSpec): Promise<void> {
  const uid = storageUidOf(w.id);
  const roleName = roleNameOf(w.id);
  const buckets = [w.tableBucket, w.blobBucket];
  await storage.ensureBucket(w.tableBucket);
  await storage.ensureBucket(w.blobBucket);
  const rw = await storage.ensureIdentity({ uid, displayName: `catalog ${w.name}`, buckets, access: 'write', assumableRole: roleName });
  const ro = await storage.ensureIdentity({ uid: `${uid}-ro`, displayName: `catalog ${w.name} (read-only)`, buckets, access: 'read', assumableRole: roleName });
  const { arn } = await storage.ensureRole({ roleName, trustedUids: [uid, `${uid}-ro`], buckets });
  await db.query(
    `UPDATE warehouses SET storage_access_key = $2, storage_secret_key = $3, storage_ro_access_key = $4, storage_ro_secret_key = $5, role_arn = $6
      WHERE id = $1`,
    [w.id, rw.accessKeyId, rw.secretAccessKey, ro.accessKeyId, ro.secretAccessKey, arn],
  );
}

/** The spec's storage probe: a tenant-signed PUT and DELETE of an empty object in each bucket. */
export async function probeStorage(storage: StorageProvider, db: SqlClient, warehouseId: string): Promise<ProbeResult> {
  const { rows } = await db.query<{ table_bucket: string; blob_bucket: string; storage_access_key: string; storage_secret_key: string }>(
    `SELECT table_bucket, blob_bucket, storage_access_key, storage_secret_key FROM warehouses WHERE id = $1`, [warehouseId]);
  const w = rows[0];
  return storage.probe({ accessKeyId: w.storage_access_key, secretAccessKey: w.storage_secret_key }, [w.table_bucket, w.blob_bucket]);
}

export function probeView(p: ProbeResult, tableBucket: string, blobBucket: string) {
  const state = (bucket: string) => {
    const b = p.buckets.find((x) => x.bucket === bucket);
    return b?.ok ? 'ok' : 'refused';
  };
  return { table: state(tableBucket), blob: state(blobBucket), seconds: p.seconds };
}
