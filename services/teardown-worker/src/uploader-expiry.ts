import { writeAudit } from '@floe/http';
import { dueUploaderIds, expireIfDue, orgOfWarehouse } from '@floe/catalogs';
import type { WorkerDeps } from './deps';

// Uploader expiry (packages/queues/src/uploader-expiry.ts): at `expires_at`
// an active uploader's storage identity goes — key first, then its policy,
// then the user, as a revocation does — and the row becomes `expired`,
// audited `uploader.expire`. The delayed `expire` job of one uploader and the
// cluster's `sweep` both end here; either finding the work done does nothing.

type ExpiryDeps = Pick<WorkerDeps, 'prisma' | 'storage' | 'db' | 'logger'>;

/** Expires one uploader if it is active and due; whether it did. */
export async function expireUploader(d: ExpiryDeps, uploaderId: string): Promise<boolean> {
  const done = await expireIfDue(d.prisma, uploaderId, (u) => d.storage.revokeUploader(u.iamUser));
  if (!done) return false;
  const { u, removed } = done;
  await writeAudit(d.db, null, {
    action: 'uploader.expire', orgId: await orgOfWarehouse(d.prisma, u.warehouseId), targetType: 'uploader', targetId: u.id,
    data: {
      warehouse_id: u.warehouseId, name: u.name, iam_user: u.iamUser, access_key_id: u.accessKeyId, expires_at: u.expiresAt?.toISOString() ?? null,
      storage: { access_key: removed.access_keys, user_policy: removed.user_policy, user: removed.user },
    },
  });
  d.logger.info('uploader expired', { uploader_id: u.id, warehouse_id: u.warehouseId });
  return true;
}

/** The sweep: expires every uploader past due; how many it expired. */
export async function expireDueUploaders(d: ExpiryDeps): Promise<string> {
  let expired = 0;
  for (const id of await dueUploaderIds(d.prisma, new Date())) if (await expireUploader(d, id)) expired += 1;
  return `${expired} expired`;
}
