import type { VisibleWarehouse } from '@floe/catalogs';
import { conflict } from '@floe/http';
import type { PrismaClient } from '@floe/db';
import { CatalogFailure, asCatalogError, dottedLevels, type CatalogClient } from '../../catalog-client';
import { liveSinksOn } from '../../store/sinks';
import { catalogTables } from './catalog-tables';

// DELETE /v1/table and DELETE /v1/namespace after the write-level check,
// through the catalog as the warehouse's own identity. A table is dropped
// with purgeRequested: the catalog's purge pass then deletes only what the
// table owned (its location, when no other table or view holds anything
// inside or around it). Refused first: a public catalog (anonymous readers
// may be reading it: make it private first), a table a live sink appends to.

export interface TableDeleteDeps {
  catalog: CatalogClient;
  prisma: PrismaClient;
}

function refuseWhilePublic(w: VisibleWarehouse, what: string): void {
  if (w.publicSince) {
    throw conflict('public_catalog', `catalog ${w.name} is public: anyone may be reading it; make it private (DELETE /v1/warehouses/{id}/public) before deleting ${what}`, {
      warehouse_id: w.id, public_since: w.publicSince.toISOString(),
    });
  }
}

async function refuseWithSinks(d: TableDeleteDeps, w: VisibleWarehouse, namespace: string, tableName: string | null): Promise<void> {
  const sinks = await liveSinksOn(d.prisma, { warehouseId: w.id, namespace, tableName });
  if (sinks.length) {
    throw conflict('table_has_sinks', `${sinks.length === 1 ? 'a sink appends' : `${sinks.length} sinks append`} to ${tableName ? `${namespace}.${tableName}` : `tables of ${namespace}`}; delete ${sinks.length === 1 ? 'it' : 'them'} first (DELETE /v1/sinks/{id})`, {
      sinks: sinks.map((s) => ({ sink_id: s.id, name: s.name, table: `${s.namespace}.${s.tableName}`, state: s.state })),
    });
  }
}

/** Drops one table (its uuid and location, for the answer and the audit). */
export async function dropTable(d: TableDeleteDeps, w: VisibleWarehouse, namespace: string, name: string): Promise<{ tableUuid: string; location: string }> {
  refuseWhilePublic(w, 'a table');
  await refuseWithSinks(d, w, namespace, name);
  const loaded = await catalogTables(d.catalog).load(w, namespace, name);
  try {
    await d.catalog.dropTable(w.id, { namespace: dottedLevels(namespace), name }, { purge: true });
  } catch (err) {
    // Dropped by someone else between the load and the drop: the same 404 the load gives.
    if (err instanceof CatalogFailure && err.type === 'NoSuchTableException') await catalogTables(d.catalog).load(w, namespace, name);
    throw asCatalogError(err);
  }
  return { tableUuid: String(loaded.metadata['table-uuid']), location: loaded.metadata.location };
}

/** Drops one empty namespace. */
export async function dropNamespace(d: TableDeleteDeps, w: VisibleWarehouse, namespace: string): Promise<void> {
  refuseWhilePublic(w, 'a namespace');
  await refuseWithSinks(d, w, namespace, null);
  const { namespaceNotFound, tablesIn } = catalogTables(d.catalog);
  try {
    await d.catalog.dropNamespace(w.id, dottedLevels(namespace));
  } catch (err) {
    if (err instanceof CatalogFailure && err.type === 'NoSuchNamespaceException') throw await namespaceNotFound(w, namespace);
    if (err instanceof CatalogFailure && err.type === 'NamespaceNotEmptyException') {
      throw conflict('namespace_not_empty', `namespace ${namespace} is not empty: drop its tables, views and child namespaces first`, {
        namespace, tables: await tablesIn(w, namespace).catch(() => []), catalog_message: err.message,
      });
    }
    throw asCatalogError(err);
  }
}
