import type { SqlClient } from '@floe/http';
import { splitNamespace } from './namespaces';

// Who holds a location: a live table or view, or a dropped table whose purge
// has not finished (its files are still there, and the purge will delete
// under that location). No two holders' locations may be equal or nest.

export interface LocationHolder {
  kind: 'table' | 'view' | 'purge';
  /** `ns.name` of the table or view (of the dropped table, for a purge). */
  identifier: string;
  location: string;
}

/** Every proper ancestor of a location at `/` boundaries below the bucket: the locations that would enclose it. */
function ancestors(location: string): string[] {
  const root = location.indexOf('/', 's3://'.length);
  const out: string[] = [];
  for (let i = location.indexOf('/', root + 1); i > 0; i = location.indexOf('/', i + 1)) out.push(location.slice(0, i));
  return out;
}

/**
 * The first holder whose location overlaps `location` in this warehouse,
 * ignoring the tables and views in `except.rows` (the ones being moved) and
 * the purge `except.purge` (the one asking). Enclosing holders are found
 * through the (warehouse_id, location) index; holders inside `location` by a
 * prefix scan of the warehouse's rows.
 */
export async function overlappingHolder(
  db: SqlClient, warehouseId: string, location: string, except: { rows?: string[]; purge?: string } = {},
): Promise<LocationHolder | null> {
  const { rows } = await db.query<{ kind: LocationHolder['kind']; namespace: string | null; name: string | null; location: string }>({
    name: 'catalog_overlapping_location',
    text: `SELECT kind, namespace, name, location FROM catalog_tables
            WHERE warehouse_id = $1 AND NOT (id = ANY($3::text[]))
              AND (location = $2 OR location = ANY($4::text[]) OR starts_with(location, $2 || '/'))
           UNION ALL
           SELECT 'purge', NULL, table_ident, location FROM catalog_purges
            WHERE warehouse_id = $1 AND done_at IS NULL AND ($5::bigint IS NULL OR id <> $5::bigint)
              AND (location = $2 OR location = ANY($4::text[]) OR starts_with(location, $2 || '/'))
           LIMIT 1`,
    values: [warehouseId, location, except.rows ?? [], ancestors(location), except.purge ?? null],
  });
  const r = rows[0];
  if (!r) return null;
  const identifier = r.namespace === null ? (r.name ?? 'a dropped table') : [...splitNamespace(r.namespace), r.name].join('.');
  return { kind: r.kind, identifier, location: r.location };
}

/**
 * Serialises every change of locations in one warehouse for the rest of the
 * transaction: the overlap check and the write that follows it must not
 * interleave with another's. Commits that keep their location never take it.
 */
export async function lockWarehouseLocations(db: SqlClient, warehouseId: string): Promise<void> {
  await db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`catalog-locations:${warehouseId}`]);
}
