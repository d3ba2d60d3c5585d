import type { Db } from '@floe/db';

// The rows the teardown worker's jobs change: a warehouse leaving
// `provisioning`, a rotated catalog credential being retired.

/** A warehouse's state, buckets and read/write storage keys (the secret still sealed). */
export function provisioningView(db: Db, warehouseId: string) {
  return db.warehouse.findUnique({
    where: { id: warehouseId },
    select: { status: true, tableBucket: true, blobBucket: true, storageAccessKey: true, storageSecretKey: true },
  });
}

/** `provisioning` → `ready`; a warehouse in any other state is left as it is. */
export async function markProvisioned(db: Db, warehouseId: string): Promise<void> {
  await db.warehouse.updateMany({ where: { id: warehouseId, status: 'provisioning' }, data: { status: 'ready', provisionUntil: null } });
}

/** Revokes one credential of the warehouse; false when it was already revoked (or is not the warehouse's). */
export async function revokeCredential(db: Db, warehouseId: string, clientId: string): Promise<boolean> {
  const { count } = await db.catalogCredential.updateMany({ where: { clientId, warehouseId, revokedAt: null }, data: { revokedAt: new Date() } });
  return count === 1;
}

export async function principalKind(db: Db, principalId: string): Promise<string | null> {
  return (await db.principal.findUnique({ where: { id: principalId }, select: { kind: true } }))?.kind ?? null;
}
