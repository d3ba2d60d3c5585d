import type { Pool } from 'pg';
import type { SqlClient } from '@floe/http';
import { withTransaction } from '@floe/http';
import { NAMESPACE_SEPARATOR, joinNamespace, splitNamespace } from '@floe/iceberg';

// The catalog's namespaces (catalog_namespaces). This package is the one
// home of the catalog's rows: nothing else writes them (index.ts).
//
// Data access here is raw SQL over pg, not the Prisma client: the catalog's
// load and commit paths run named prepared statements (bench/catalog holds
// loads under a millisecond and commits near the storage floor), and a
// commit's transaction must tell a refused statement from one whose outcome
// is unknown by pg's own error classes (outcome.ts), which Prisma's errors hide.

// Namespaces are stored by their levels joined with U+001F (@floe/iceberg's
// joinNamespace), the separator the REST spec uses in paths, so a parent's
// children are a prefix match.

export async function getNamespace(db: SqlClient, warehouseId: string, levels: string[]): Promise<Record<string, string> | null> {
  const { rows } = await db.query<{ properties: Record<string, string> }>(
    `SELECT properties FROM catalog_namespaces WHERE warehouse_id = $1 AND name = $2`,
    [warehouseId, joinNamespace(levels)],
  );
  return rows[0]?.properties ?? null;
}

/** Inserts; false when it exists already. */
export async function insertNamespace(db: SqlClient, warehouseId: string, levels: string[], properties: Record<string, string>): Promise<boolean> {
  const r = await db.query(
    `INSERT INTO catalog_namespaces (warehouse_id, name, properties) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
    [warehouseId, joinNamespace(levels), JSON.stringify(properties)],
  );
  return (r.rowCount ?? 0) > 0;
}

/** Direct children of `parent` (top level when empty), in name order, after `after`. */
export async function listNamespaces(db: SqlClient, warehouseId: string, parent: string[], after: string | null, limit: number): Promise<string[][]> {
  const prefix = parent.length ? joinNamespace(parent) + NAMESPACE_SEPARATOR : '';
  const { rows } = await db.query<{ name: string }>(
    `SELECT name FROM catalog_namespaces
      WHERE warehouse_id = $1 AND starts_with(name, $2) AND strpos(substr(name, length($2) + 1), $3) = 0
        AND ($4::text IS NULL OR name > $4)
      ORDER BY name LIMIT $5`,
    [warehouseId, prefix, NAMESPACE_SEPARATOR, after, limit],
  );
  return rows.map((r) => splitNamespace(r.name));
}

/** What keeps a namespace from being dropped: tables/views in it, or child namespaces. */
export async function namespaceContents(db: SqlClient, warehouseId: string, levels: string[]): Promise<{ tables: number; children: number }> {
  const name = joinNamespace(levels);
  // Functions count as tables here: a namespace holding either is not empty.
  const { rows } = await db.query<{ tables: string; children: string }>(
    `SELECT (SELECT count(*) FROM catalog_tables WHERE warehouse_id = $1 AND namespace = $2)
          + (SELECT count(*) FROM catalog_functions WHERE warehouse_id = $1 AND namespace = $2) AS tables,
            (SELECT count(*) FROM catalog_namespaces WHERE warehouse_id = $1 AND starts_with(name, $3)) AS children`,
    [warehouseId, name, name + NAMESPACE_SEPARATOR],
  );
  return { tables: Number(rows[0].tables), children: Number(rows[0].children) };
}

export async function deleteNamespace(db: SqlClient, warehouseId: string, levels: string[]): Promise<boolean> {
  const r = await db.query(`DELETE FROM catalog_namespaces WHERE warehouse_id = $1 AND name = $2`, [warehouseId, joinNamespace(levels)]);
  return (r.rowCount ?? 0) > 0;
}

export interface PropertyChange {
  updated: string[];
  removed: string[];
  missing: string[];
}

/** Removes then sets properties in one transaction (row locked); null when the namespace does not exist. */
export async function changeNamespaceProperties(
  pool: Pool, warehouseId: string, levels: string[], removals: string[], updates: Record<string, string>,
): Promise<PropertyChange | null> {
  return withTransaction(pool, async (client) => {
    const { rows } = await client.query<{ properties: Record<string, string> }>(
      `SELECT properties FROM catalog_namespaces WHERE warehouse_id = $1 AND name = $2 FOR UPDATE`,
      [warehouseId, joinNamespace(levels)],
    );
    if (!rows[0]) return null;
    const props = { ...rows[0].properties };
    const removed = removals.filter((k) => k in props);
    const missing = removals.filter((k) => !(k in props));
    for (const k of removed) delete props[k];
    Object.assign(props, updates);
    await client.query(`UPDATE catalog_namespaces SET properties = $3 WHERE warehouse_id = $1 AND name = $2`,
      [warehouseId, joinNamespace(levels), JSON.stringify(props)]);
    return { updated: Object.keys(updates), removed, missing };
  });
}
