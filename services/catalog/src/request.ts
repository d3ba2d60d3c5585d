import type { Request } from 'express';
import { findTable, type TableRow } from '@floe/catalog-store';
import type { SqlClient } from '@floe/http';
import { splitNamespace } from '@floe/iceberg';
import { badRequest, noSuchTable } from './errors';
import type { WarehouseRow } from './store/warehouses';

// What a catalog request names, resolved: the namespace in its path, the
// caller's warehouse, an existing table. Shared by the route files, which
// import nothing from each other.

export function namespaceOf(req: Request): string[] {
  const levels = splitNamespace(String(req.params.namespace));
  if (levels.some((l) => l.length === 0)) throw badRequest('Invalid namespace: empty level');
  return levels;
}

/** The caller's warehouse, as resolved (and cached) with its credential's standing. */
export function warehouseOf(req: Request): WarehouseRow {
  return req.catalogCaller!.warehouse;
}

/**
 * The table, or NoSuchTableException — also when its namespace does not
 * exist, as the reference server answers: the Java client relies on it
 * (metadata tables like db.t.files, time-travel selectors, dropTable → false).
 */
export async function existingTable(db: SqlClient, req: Request, ns: string[], name: string): Promise<TableRow> {
  const t = await findTable(db, req.catalogCaller!.warehouseId, ns, name);
  if (!t || !t.metadataLocation) throw noSuchTable(ns, name);
  return t;
}
