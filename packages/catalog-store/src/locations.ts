import type { SqlClient } from '@floe/http';
import { splitNamespace } from '@floe/iceberg';
import { parseS3Location, s3Uri } from '@floe/storage';

// Who holds a location: a live table or view, or a dropped table whose purge
// has not finished (its files are still there, and the purge will delete
// under that location). No two holders' locations may be equal or nest.
//
// Data access here is raw SQL over pg, not the Prisma client: the catalog's
// load and commit paths run named prepared statements (bench/catalog holds
// loads under a millisecond and commits near the storage floor), and a
// commit's transaction must tell a refused statement from one whose outcome
// is unknown by pg's own error classes (outcome.ts), which Prisma's errors hide.

export interface LocationHolder {
  kind: 'table' | 'view' | 'purge';
  /** `ns.name` of the table or view (of the dropped table, for a purge). */
  identifier: string;
  location: string;
}

/** Every proper ancestor of a location at `/` boundaries below the bucket: the locations that would enclose it. */
export function ancestors(location: string): string[] {
  const { bucket, key } = parseS3Location(location);
  const out: string[] = [];
  for (let i = key.indexOf('/'); i > 0; i = key.indexOf('/', i + 1)) out.push(s3Uri(bucket, key.slice(0, i)));
  return out;
}

export interface RawHolder {
  kind: LocationHolder['kind'];
  namespace: string | null;
  name: string | null;
  location: string;
}

export function toHolder(r: RawHolder): LocationHolder {
  const identifier = r.namespace === null ? (r.name ?? 'a dropped table') : [...splitNamespace(r.namespace), r.name].join('.');
  return { kind: r.kind, identifier, location: r.location };
}

/**
 * The first holder whose location overlaps `location` in this warehouse,
 * ignoring the tables and views in `except.rows` (the ones being moved) and
 * the purge `except.purge` (the one asking). The rule itself is the SQL
 * function catalog_location_holder (migration 20261124120000), which the
 * pointer writes in tables.ts run under the warehouse's location lock:
 * enclosing holders are found through the (warehouse_id, location) index,
 * holders inside `location` by a prefix scan of the warehouse's rows.
 */
export async function overlappingHolder(
  db: SqlClient, warehouseId: string, location: string, except: { rows?: string[]; purge?: string } = {},
): Promise<LocationHolder | null> {
  const { rows } = await db.query<RawHolder>({
    name: 'catalog_overlapping_location',
    text: `SELECT kind, namespace, name, location FROM catalog_location_holder($1, $2, $3::text[], $4::text[], $5::bigint)`,
    values: [warehouseId, location, ancestors(location), except.rows ?? [], except.purge ?? null],
  });
  return rows[0] ? toHolder(rows[0]) : null;
}
