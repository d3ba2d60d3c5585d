import type { SqlClient } from '@floe/http';

export interface WarehouseRow {
  id: string;
  name: string;
  table_bucket: string;
  status: string;
}

export async function warehouseById(db: SqlClient, id: string): Promise<WarehouseRow | null> {
  const { rows } = await db.query<WarehouseRow>({
    name: 'catalog_warehouse_by_id',
    text: `SELECT id, name, table_bucket, status FROM warehouses WHERE id = $1 AND deleted_at IS NULL`,
    values: [id],
  });
  return rows[0] ?? null;
}
