import type { SqlClient } from '@floe/http';
import { joinNamespace } from '@floe/iceberg';

// The catalog's functions (catalog_functions): each a namespace's UDF, its
// metadata (the Iceberg UDF spec's JSON) kept whole. Raw SQL over pg, as the
// rest of this package (index.ts says why).

/** The function's metadata text; null when there is none of that name. */
export async function getFunction(db: SqlClient, warehouseId: string, namespace: string[], name: string): Promise<string | null> {
  const { rows } = await db.query<{ metadata: string }>(
    `SELECT metadata FROM catalog_functions WHERE warehouse_id = $1 AND namespace = $2 AND name = $3`,
    [warehouseId, joinNamespace(namespace), name],
  );
  return rows[0]?.metadata ?? null;
}

/** Names of the namespace's functions after `after`, in order, at most `limit`. */
export async function listFunctions(db: SqlClient, warehouseId: string, namespace: string[], after: string | null, limit: number): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM catalog_functions WHERE warehouse_id = $1 AND namespace = $2 AND ($3::text IS NULL OR name > $3)
      ORDER BY name LIMIT $4`,
    [warehouseId, joinNamespace(namespace), after, limit],
  );
  return rows.map((r) => r.name);
}

/** Stores the function's metadata: true when it was created, false when it replaced one (one statement, so concurrent puts of a name make one row). */
export async function putFunction(db: SqlClient, warehouseId: string, namespace: string[], name: string, metadata: string): Promise<boolean> {
  const { rows } = await db.query<{ created: boolean }>(
    `INSERT INTO catalog_functions (warehouse_id, namespace, name, metadata) VALUES ($1, $2, $3, $4)
       ON CONFLICT (warehouse_id, namespace, name) DO UPDATE SET metadata = EXCLUDED.metadata, updated_at = now()
     RETURNING (xmax = 0) AS created`,
    [warehouseId, joinNamespace(namespace), name, metadata],
  );
  return rows[0].created;
}

/** Removes a function; false when there was none (a concurrent drop won). */
export async function deleteFunction(db: SqlClient, warehouseId: string, namespace: string[], name: string): Promise<boolean> {
  const r = await db.query(`DELETE FROM catalog_functions WHERE warehouse_id = $1 AND namespace = $2 AND name = $3`, [warehouseId, joinNamespace(namespace), name]);
  return (r.rowCount ?? 0) > 0;
}
