import type { StorageProvider } from './provider';
import type { WarehouseStorageNames } from './warehouse-seal';

// The current storage policies (policies.ts, STORAGE_POLICY_VERSION) put on a
// catalog that already exists: its buckets made to ignore public ACLs, its
// two identities' and its uploaders' policies put again, and — only while the
// catalog is live — its role's permissions with the cut of sessions issued
// before a deletion. Nothing is created: a bucket or identity that is gone
// (a catalog being torn down, an uploader revoked meanwhile) is reported
// 'absent'. A sealed catalog's role is left without permissions (its
// deletion took them away; a restore gives them back through here).
//
// Callers: the teardown worker's policy sweep (every catalog behind the
// current version) and a restore (the catalog coming back).

export interface WarehousePolicySubject extends WarehouseStorageNames {
  blobBucket: string;
  /** Storage sessions issued before this stay refused (a restored catalog's last deletion); null: none. */
  sessionsValidAfter: Date | null;
  /** Active uploaders: their identity and what their policy allows. */
  uploaders: Array<{ uid: string; prefix: string; list: boolean }>;
}

export async function applyWarehousePolicies(
  storage: StorageProvider, w: WarehousePolicySubject, opts: { role: boolean },
): Promise<Record<string, string>> {
  const buckets = [w.tableBucket, w.blobBucket];
  const steps: Record<string, string> = {};
  for (const b of buckets) steps[`bucket:${b}`] = await storage.ignorePublicAcls(b);
  steps[w.storageUid] = await storage.setIdentityPolicy({ uid: w.storageUid, buckets, access: 'write', assumableRole: w.roleName });
  steps[w.storageRoUid] = await storage.setIdentityPolicy({ uid: w.storageRoUid, buckets, access: 'read', assumableRole: w.roleName });
  for (const u of w.uploaders) steps[u.uid] = await storage.setUploaderPolicy({ uid: u.uid, bucket: w.blobBucket, prefix: u.prefix, list: u.list });
  if (opts.role) {
    await storage.ensureRole({ roleName: w.roleName, trustedUids: [w.storageUid, w.storageRoUid], buckets, sessionsIssuedAfter: w.sessionsValidAfter });
    steps[`role:${w.roleName}`] = 'put';
  }
  return steps;
}
