import type { PrismaClient } from '@floe/db';
import type { WarehousePolicySubject } from '@floe/storage';

// The catalogs the storage-policy sweep brings up to date, and the lock it
// holds while it does. The warehouse row is locked for the storage steps, so
// the sweep never interleaves with a deletion sealing the catalog (which
// changes the row first) or a teardown beginning: a role's permissions are
// put back only while the row says the catalog is live.

export type PolicyTarget =
  /** Live: everything, the role included. */
  | 'live'
  /** Deleted, within its grace: buckets and identities, never the role (the deletion took its permissions). */
  | 'sealed';

/** Up to `take` ids after `after` of catalogs behind `version` that the sweep acts on. */
export async function catalogsBehind(db: PrismaClient, version: number, after: string, take: number): Promise<string[]> {
  const rows = await db.warehouse.findMany({
    where: {
      storagePolicyVersion: { lt: version },
      id: { gt: after },
      OR: [{ status: { in: ['provisioning', 'ready'] } }, { status: 'deleting', teardownStep: 'queued' }],
    },
    select: { id: true },
    orderBy: { id: 'asc' },
    take,
  });
  return rows.map((r) => r.id);
}

/**
 * Holding the warehouse row: reads what the policies need, runs `apply` for
 * the catalog's state, and records `version`. Null when the catalog is in no
 * state the sweep acts on any more (being created, restored or torn down).
 */
export async function withCatalogHeld<T>(
  prisma: PrismaClient, id: string, version: number,
  apply: (w: WarehousePolicySubject, target: PolicyTarget) => Promise<T>,
): Promise<T | null> {
  return prisma.$transaction(async (tx) => {
    // Raw: Prisma has no row locks.
    await tx.$queryRaw`SELECT 1 FROM warehouses WHERE id = ${id} FOR UPDATE`;
    const w = await tx.warehouse.findUnique({
      where: { id },
      select: {
        id: true, status: true, teardownStep: true, tableBucket: true, blobBucket: true, storageUid: true, storageRoUid: true, roleName: true,
        sessionsValidAfter: true, storagePolicyVersion: true,
      },
    });
    if (!w || w.storagePolicyVersion >= version) return null;
    const target: PolicyTarget | null = ['provisioning', 'ready'].includes(w.status) ? 'live'
      : w.status === 'deleting' && w.teardownStep === 'queued' ? 'sealed' : null;
    if (!target) return null;
    const uploaders = await tx.uploader.findMany({ where: { warehouseId: id, status: 'active' }, select: { iamUser: true, prefix: true, list: true } });
    const out = await apply({
      id, tableBucket: w.tableBucket, blobBucket: w.blobBucket, storageUid: w.storageUid, storageRoUid: w.storageRoUid, roleName: w.roleName,
      sessionsValidAfter: w.sessionsValidAfter, uploaders: uploaders.map((u) => ({ uid: u.iamUser, prefix: u.prefix, list: u.list })),
    }, target);
    await tx.warehouse.update({ where: { id }, data: { storagePolicyVersion: version } });
    return out;
  }, { maxWait: 15_000, timeout: 60_000 });
}
