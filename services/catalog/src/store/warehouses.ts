import type { SqlClient } from '@floe/http';
import type { StoreCredentials } from '@floe/storage';

export interface WarehouseRow {
  id: string;
  name: string;
  tableBucket: string;
  status: string;
  /** The warehouse's own storage identities: the catalog reads and writes metadata as them, never as the admin. */
  rw: StoreCredentials;
  ro: StoreCredentials;
  roleArn: string | null;
}

interface Raw {
  id: string;
  name: string;
  table_bucket: string;
  status: string;
  storage_access_key: string;
  storage_secret_key: string;
  storage_ro_access_key: string;
  storage_ro_secret_key: string;
  role_arn: string | null;
}

export async function warehouseById(db: SqlClient, id: string): Promise<WarehouseRow | null> {
  const { rows } = await db.query<Raw>({
    name: 'catalog_warehouse_by_id',
    text: `SELECT id, name, table_bucket, status, storage_access_key, storage_secret_key, storage_ro_access_key,
                  storage_ro_secret_key, role_arn
             FROM warehouses WHERE id = $1 AND deleted_at IS NULL`,
    values: [id],
  });
  const r = rows[0];
  if (!r) return null;
  return {
    id: r.id,
    name: r.name,
    tableBucket: r.table_bucket,
    status: r.status,
    rw: { accessKeyId: r.storage_access_key, secretAccessKey: r.storage_secret_key },
    ro: { accessKeyId: r.storage_ro_access_key, secretAccessKey: r.storage_ro_secret_key },
    roleArn: r.role_arn,
  };
}
