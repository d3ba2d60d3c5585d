import type { Db } from '@floe/db';

// Catalog credentials as the token exchange reads them (the control plane
// writes them), with whether their warehouse is still live.

export interface ExchangeCredential {
  secretHash: string;
  access: string;
  warehouseId: string;
  revoked: boolean;
  /** The warehouse is neither deleted nor being deleted. */
  live: boolean;
}

export async function credentialForExchange(db: Db, clientId: string): Promise<ExchangeCredential | null> {
  // Raw: joins the warehouse (no relation declared).
  const rows = await db.$queryRaw<ExchangeCredential[]>`
    SELECT c.secret_hash AS "secretHash", c.access, c.warehouse_id AS "warehouseId", c.revoked_at IS NOT NULL AS revoked,
           (w.deleted_at IS NULL AND w.status <> 'deleting') AS live
      FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id WHERE c.client_id = ${clientId}`;
  return rows[0] ?? null;
}

/** The live warehouse's newest unrevoked read/write client id. */
export async function currentWriteClientId(db: Db, warehouseId: string): Promise<string | null> {
  // Raw: joins the warehouse (no relation declared).
  const rows = await db.$queryRaw<Array<{ client_id: string }>>`
    SELECT c.client_id FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id
     WHERE c.warehouse_id = ${warehouseId} AND c.access = 'write' AND c.revoked_at IS NULL AND w.deleted_at IS NULL AND w.status <> 'deleting'
     ORDER BY c.created_at DESC LIMIT 1`;
  return rows[0]?.client_id ?? null;
}
