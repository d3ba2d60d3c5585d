import { STORAGE_POLICY_VERSION, type WarehousePolicySubject } from '@floe/storage';
import type { Db } from '@floe/db';

// What a catalog's storage policies are made from, besides the warehouse row
// (packages/storage warehouse-policies.ts), and the record that they were put.

/** The active uploaders of a catalog, as their policies need them. */
export async function activeUploaderIdentities(db: Db, warehouseId: string): Promise<WarehousePolicySubject['uploaders']> {
  const rows = await db.uploader.findMany({ where: { warehouseId, status: 'active' }, select: { iamUser: true, prefix: true, list: true } });
  return rows.map((u) => ({ uid: u.iamUser, prefix: u.prefix, list: u.list }));
}

/** The current policies are on the catalog's storage, refusing sessions issued before `sessionsValidAfter`. */
export async function recordStoragePolicies(db: Db, warehouseId: string, sessionsValidAfter: Date | null): Promise<void> {
  await db.warehouse.update({ where: { id: warehouseId }, data: { storagePolicyVersion: STORAGE_POLICY_VERSION, sessionsValidAfter } });
}
