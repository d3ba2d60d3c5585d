import type { SqlClient } from '@floe/http';
import { joinNamespace, splitNamespace } from './namespaces';

// Each table's current metadata location lives here and moves only by a
// compare-and-set on `version`: a commit that lost a race changes nothing.

export interface TableRow {
  id: string;
  namespace: string[];
  name: string;
  kind: 'table' | 'view';
  metadataLocation: string | null;
  version: number;
}

interface Raw {
  id: string;
  namespace: string;
  name: string;
  kind: 'table' | 'view';
  metadata_location: string | null;
  version: number;
}

const toRow = (r: Raw): TableRow => ({
  id: r.id, namespace: splitNamespace(r.namespace), name: r.name, kind: r.kind, metadataLocation: r.metadata_location, version: r.version,
});

export async function findTable(db: SqlClient, warehouseId: string, namespace: string[], name: string, kind: 'table' | 'view' = 'table'): Promise<TableRow | null> {
  const { rows } = await db.query<Raw>({
    name: 'catalog_find_table',
    text: `SELECT id, namespace, name, kind, metadata_location, version FROM catalog_tables
            WHERE warehouse_id = $1 AND namespace = $2 AND name = $3 AND kind = $4`,
    values: [warehouseId, joinNamespace(namespace), name, kind],
  });
  return rows[0] ? toRow(rows[0]) : null;
}

/** Any table or view of that name: they share one name space within a namespace. */
export async function nameTaken(db: SqlClient, warehouseId: string, namespace: string[], name: string): Promise<'table' | 'view' | null> {
  const { rows } = await db.query<{ kind: 'table' | 'view' }>(
    `SELECT kind FROM catalog_tables WHERE warehouse_id = $1 AND namespace = $2 AND name = $3`,
    [warehouseId, joinNamespace(namespace), name],
  );
  return rows[0]?.kind ?? null;
}

/** Inserts a new table at version 1; false when the name is taken (unique violation). */
export async function insertTable(
  db: SqlClient, t: { id: string; warehouseId: string; namespace: string[]; name: string; kind: 'table' | 'view'; metadataLocation: string },
): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO catalog_tables (id, warehouse_id, namespace, name, kind, metadata_location, version)
     VALUES ($1, $2, $3, $4, $5, $6, 1) ON CONFLICT (warehouse_id, namespace, name) DO NOTHING`,
    [t.id, t.warehouseId, joinNamespace(t.namespace), t.name, t.kind, t.metadataLocation],
  );
  return (r.rowCount ?? 0) > 0;
}

/** The compare-and-set: true when `expectedVersion` was still current and the pointer moved. */
export async function swapMetadataLocation(db: SqlClient, id: string, expectedVersion: number, location: string): Promise<boolean> {
  const r = await db.query({
    name: 'catalog_swap_metadata',
    text: `UPDATE catalog_tables SET metadata_location = $3, version = version + 1, updated_at = now()
            WHERE id = $1 AND version = $2`,
    values: [id, expectedVersion, location],
  });
  return (r.rowCount ?? 0) === 1;
}

export async function listTables(db: SqlClient, warehouseId: string, namespace: string[], kind: 'table' | 'view', after: string | null, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM catalog_tables WHERE warehouse_id = $1 AND namespace = $2 AND kind = $3 AND ($4::text IS NULL OR name > $4)
      ORDER BY name LIMIT $5`,
    [warehouseId, joinNamespace(namespace), kind, after, limit],
  );
  return rows.map((r) => r.name);
}

export async function deleteTable(db: SqlClient, id: string): Promise<boolean> {
  const r = await db.query(`DELETE FROM catalog_tables WHERE id = $1`, [id]);
  return (r.rowCount ?? 0) > 0;
}

/** Moves a table or view to another identifier; false when the destination is taken. */
export async function renameTable(db: SqlClient, id: string, namespace: string[], name: string): Promise<boolean> {
  try {
    const r = await db.query(`UPDATE catalog_tables SET namespace = $2, name = $3, updated_at = now() WHERE id = $1`, [id, joinNamespace(namespace), name]);
    return (r.rowCount ?? 0) > 0;
  } catch (err) {
    if ((err as { code?: string }).code === '23505') return false;
    throw err;
  }
}
