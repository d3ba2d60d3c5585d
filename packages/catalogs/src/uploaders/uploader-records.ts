import type { Db, Prisma, Uploader } from '@floe/db';

// Uploader rows (write-only blob credentials) as the control plane writes and
// reads them. Creation and revocation hold locks across their storage steps
// so concurrent requests make one identity and revoke it once:
// `lockUploaderCreation` serialises the creates of one warehouse (the name
// check and the count see every committed create), `lockUploader` serialises
// the revocations of one row (and the teardown worker's expiry of it).

export type UploaderRecord = Uploader;
export type UploaderStatus = 'active' | 'expired' | 'revoked';

/** Held until the transaction ends; keyed on the warehouse, not a row, since the uploader being created has none yet. */
export async function lockUploaderCreation(tx: Prisma.TransactionClient, warehouseId: string): Promise<void> {
  // Raw: Prisma has no advisory locks.
  await tx.$queryRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`uploaders:${warehouseId}`}, 0))::text`;
}

export function activeUploaderNamed(db: Db, warehouseId: string, name: string): Promise<UploaderRecord | null> {
  return db.uploader.findFirst({ where: { warehouseId, name, status: 'active' } });
}

export function countActiveUploaders(db: Db, warehouseId: string): Promise<number> {
  return db.uploader.count({ where: { warehouseId, status: 'active' } });
}

export function insertUploader(db: Db, row: Prisma.UploaderUncheckedCreateInput): Promise<UploaderRecord> {
  return db.uploader.create({ data: row });
}

/** Active ones, or every one (revoked and expired too), newest first. */
export function listUploaders(db: Db, warehouseId: string, includeInactive: boolean): Promise<UploaderRecord[]> {
  return db.uploader.findMany({
    where: { warehouseId, ...(includeInactive ? {} : { status: 'active' }) },
    orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
  });
}

/** By id, else by name: the active one of that name, else the newest. */
export async function findUploader(db: Db, warehouseId: string, idOrName: string): Promise<UploaderRecord | null> {
  const byId = await db.uploader.findFirst({ where: { id: idOrName, warehouseId } });
  if (byId) return byId;
  return db.uploader.findFirst({ where: { warehouseId, name: idOrName }, orderBy: [{ status: 'asc' }, { createdAt: 'desc' }] });
}

/** Locks one uploader's row until the transaction ends and reads it as it is now. */
export async function lockUploader(tx: Prisma.TransactionClient, id: string): Promise<UploaderRecord | null> {
  // Raw: Prisma has no row locks.
  await tx.$queryRaw`SELECT 1 FROM uploaders WHERE id = ${id} FOR UPDATE`;
  return tx.uploader.findUnique({ where: { id } });
}

export function markRevoked(db: Db, id: string, by: string): Promise<UploaderRecord> {
  return db.uploader.update({ where: { id }, data: { status: 'revoked', revokedAt: new Date(), revokedBy: by } });
}
