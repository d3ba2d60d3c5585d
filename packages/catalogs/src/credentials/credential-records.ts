import { Prisma, type Db } from '@floe/db';

// Catalog credential rows (`catalog_credentials`): written by the control
// plane (issue at creation, rotate) and the teardown worker (retiring an old
// read-only key). A warehouse's credentials change one writer at a time: a
// writer first takes the warehouse row's lock (lockWarehouseForCredentials).

export interface CredentialRow {
  clientId: string;
  access: 'read' | 'write';
}

export interface NewCredential {
  clientId: string;
  access: 'read' | 'write';
  secretHash: string;
  secretNonce: string;
}

/**
 * Locks the warehouse row until the transaction ends, so rotations of one
 * warehouse run one after another and each sees the pair the one before
 * issued. FOR NO KEY UPDATE: it does not block inserts that reference the row
 * (grants, samples) the way FOR UPDATE would. False when there is no such row.
 */
export async function lockWarehouseForCredentials(tx: Prisma.TransactionClient, warehouseId: string): Promise<boolean> {
  // Raw: Prisma has no row locks.
  const rows = await tx.$queryRaw<unknown[]>`SELECT 1 FROM warehouses WHERE id = ${warehouseId} FOR NO KEY UPDATE`;
  return rows.length > 0;
}

/** The warehouse's unrevoked credentials, newest first. */
export async function liveCredentials(db: Db, warehouseId: string): Promise<CredentialRow[]> {
  const rows = await db.catalogCredential.findMany({
    where: { warehouseId, revokedAt: null }, orderBy: [{ createdAt: 'desc' }, { clientId: 'asc' }], select: { clientId: true, access: true },
  });
  return rows.map((r) => ({ clientId: r.clientId, access: r.access === 'write' ? 'write' : 'read' }));
}

/**
 * Inserts credentials; one already there (a resumed creation issuing the same
 * ids) is left as it is. created_at is the clock at the insert, not the
 * transaction's start: a rotation that waited for the lock must still come out
 * newer than the one it waited for, as "newest first" readers assume.
 */
export async function insertCredentials(db: Db, warehouseId: string, creds: NewCredential[]): Promise<void> {
  if (!creds.length) return;
  // Raw: created_at must be clock_timestamp() (Prisma's default is the transaction's now()).
  await db.$executeRaw`
    INSERT INTO catalog_credentials (client_id, warehouse_id, access, secret_hash, secret_nonce, created_at)
    VALUES ${Prisma.join(creds.map((c) => Prisma.sql`(${c.clientId}, ${warehouseId}, ${c.access}, ${c.secretHash}, ${c.secretNonce}, clock_timestamp())`))}
    ON CONFLICT (client_id) DO NOTHING`;
}

export async function revokeCredentials(db: Db, clientIds: string[]): Promise<void> {
  if (!clientIds.length) return;
  await db.catalogCredential.updateMany({ where: { clientId: { in: clientIds }, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** The newest unrevoked credential of one access level with the nonce its secret derives from. */
export function currentCredential(db: Db, warehouseId: string, access: 'read' | 'write'): Promise<{ clientId: string; secretNonce: string | null } | null> {
  return db.catalogCredential.findFirst({
    where: { warehouseId, access, revokedAt: null }, orderBy: { createdAt: 'desc' }, select: { clientId: true, secretNonce: true },
  });
}

/** A credential as the token exchange reads it, with whether its warehouse is still live. */
export interface ExchangeCredential {
  secretHash: string;
  access: string;
  warehouseId: string;
  revoked: boolean;
  /** The warehouse is neither deleted nor being deleted. */
  live: boolean;
}

export async function credentialForExchange(db: Db, clientId: string): Promise<ExchangeCredential | null> {
  const c = await db.catalogCredential.findUnique({
    relationLoadStrategy: 'join',
    where: { clientId },
    select: { secretHash: true, access: true, warehouseId: true, revokedAt: true, warehouse: { select: { deletedAt: true, status: true } } },
  });
  return c && {
    secretHash: c.secretHash, access: c.access, warehouseId: c.warehouseId, revoked: c.revokedAt !== null,
    live: c.warehouse.deletedAt === null && c.warehouse.status !== 'deleting',
  };
}

/** The live warehouse's newest unrevoked read/write client id. */
export async function currentWriteClientId(db: Db, warehouseId: string): Promise<string | null> {
  const c = await db.catalogCredential.findFirst({
    where: { warehouseId, access: 'write', revokedAt: null, warehouse: { deletedAt: null, status: { not: 'deleting' } } },
    orderBy: { createdAt: 'desc' },
    select: { clientId: true },
  });
  return c?.clientId ?? null;
}
