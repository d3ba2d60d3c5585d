import { toStorageError } from './errors';
import type { StorageProvider } from './provider';

// A deleted catalog's storage is sealed at the moment of deletion, before its
// grace period: every identity of the catalog suspended (its read/write and
// read-only identities and its uploaders), the role's permissions taken away
// (so storage sessions vended earlier are refused at once, not within their
// 900 s), and the anonymous-read policy removed. Nothing is deleted: restore
// lifts it all (unsealWarehouseStorage), teardown removes it after the grace.

export interface WarehouseStorageNames {
  id: string;
  storageUid: string;
  storageRoUid: string;
  roleName: string;
  tableBucket: string;
}

/** The spec's uploader identities of a catalog are `u-<warehouse uuid>-<short>`: all of them start with this. */
export const uploaderUidPrefix = (warehouseId: string): string => `u-${warehouseId}-`;

/** Every identity a catalog holds: its own two and its uploaders'. */
export async function warehouseIdentities(storage: Pick<StorageProvider, 'listIdentities'>, w: WarehouseStorageNames): Promise<string[]> {
  return [w.storageUid, w.storageRoUid, ...(await storage.listIdentities(uploaderUidPrefix(w.id)))];
}

export async function sealWarehouseStorage(storage: StorageProvider, w: WarehouseStorageNames) {
  const identities: Record<string, string> = {};
  for (const uid of await warehouseIdentities(storage, w)) identities[uid] = await storage.setIdentitySuspended(uid, true);
  const role_sessions = await storage.revokeRoleSessions(w.roleName);
  const public_policy = await storage.setPublicRead(w.tableBucket, false).then(
    (r) => (r.changed ? 'deleted' : 'absent'),
    (err) => {
      if (toStorageError('unpublish bucket', err).kind === 'not_found') return 'absent';
      throw err;
    },
  );
  return { identities, role_sessions, public_policy };
}

/** Lifts the suspensions; the role's permissions come back with ensureRole (the caller knows its buckets). */
export async function unsealIdentities(storage: StorageProvider, w: WarehouseStorageNames): Promise<Record<string, string>> {
  const identities: Record<string, string> = {};
  for (const uid of await warehouseIdentities(storage, w)) identities[uid] = await storage.setIdentitySuspended(uid, false);
  return identities;
}
