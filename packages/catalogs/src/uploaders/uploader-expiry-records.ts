import type { Db, PrismaClient } from '@floe/db';

// The uploader rows the expiry job changes: `active` → `expired` once
// `expires_at` has passed. The row is locked while the identity goes, as a
// revocation locks it (services/control-plane/src/store/uploaders.ts), so a
// revoke and an expiry of one uploader never both act.

export interface DueUploader {
  id: string;
  warehouseId: string;
  name: string;
  iamUser: string;
  accessKeyId: string;
  expiresAt: Date | null;
}

const DUE = { id: true, warehouseId: true, name: true, iamUser: true, accessKeyId: true, expiresAt: true } as const;

/** Ids of active uploaders whose time has come. */
export async function dueUploaderIds(db: Db, now: Date): Promise<string[]> {
  const rows = await db.uploader.findMany({ where: { status: 'active', expiresAt: { lte: now } }, select: { id: true }, orderBy: { expiresAt: 'asc' }, take: 500 });
  return rows.map((r) => r.id);
}

/**
 * In one transaction holding the row: when it is still active and due,
 * `removeIdentity` runs and the row becomes `expired`. Null when there was
 * nothing to do (revoked, already expired, not yet due, gone).
 */
export async function expireIfDue<T>(prisma: PrismaClient, id: string, removeIdentity: (u: DueUploader) => Promise<T>): Promise<{ u: DueUploader; removed: T } | null> {
  return prisma.$transaction(async (tx) => {
    // Raw: Prisma has no row locks.
    await tx.$queryRaw`SELECT 1 FROM uploaders WHERE id = ${id} FOR UPDATE`;
    const u = await tx.uploader.findFirst({ where: { id, status: 'active', expiresAt: { lte: new Date() } }, select: DUE });
    if (!u) return null;
    const removed = await removeIdentity(u);
    await tx.uploader.update({ where: { id }, data: { status: 'expired' } });
    return { u, removed };
  }, { maxWait: 15_000, timeout: 30_000 });
}

export async function orgOfWarehouse(db: Db, warehouseId: string): Promise<string | null> {
  return (await db.warehouse.findUnique({ where: { id: warehouseId }, select: { orgId: true } }))?.orgId ?? null;
}

/** A torn-down catalog's uploaders that were still active are revoked (their identities went with the catalog); how many. */
export async function revokeUploadersOf(db: Db, warehouseId: string): Promise<number> {
  const { count } = await db.uploader.updateMany({ where: { warehouseId, status: 'active' }, data: { status: 'revoked', revokedAt: new Date() } });
  return count;
}
