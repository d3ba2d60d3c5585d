import type { Pool } from 'pg';
import {
  changeNamespaceProperties, deleteNamespace, getNamespace, insertNamespace, listNamespaces, namespaceContents, type PropertyChange,
} from '@floe/catalog-store';
import type { SqlClient } from '@floe/http';
import { joinNamespace } from '@floe/iceberg';
import { alreadyExists, badRequest, IcebergError, noSuchNamespace } from '../errors';
import { pageOf } from '../paging';

// Namespaces of one warehouse: the namespace routes' operations, and the
// check every create, register and commit of a table or view makes first
// (its namespace exists). A namespace is dropped only when nothing is in it.

/** NoSuchNamespaceException unless the namespace exists. */
export async function requireNamespace(db: SqlClient, warehouseId: string, levels: string[]): Promise<void> {
  if (!(await getNamespace(db, warehouseId, levels))) throw noSuchNamespace(levels);
}

/** The namespace's properties, or NoSuchNamespaceException. */
export async function namespaceProperties(db: SqlClient, warehouseId: string, levels: string[]): Promise<Record<string, string>> {
  const properties = await getNamespace(db, warehouseId, levels);
  if (!properties) throw noSuchNamespace(levels);
  return properties;
}

/** One page of the direct children of `parent` (top level when empty), in name order after `after`. */
export async function childNamespaces(
  db: SqlClient, warehouseId: string, parent: string[], after: string | null, pageSize: number,
): Promise<{ page: string[][]; next: string | undefined }> {
  return pageOf(await listNamespaces(db, warehouseId, parent, after, pageSize + 1), pageSize, joinNamespace);
}

/** Creates the namespace; its parent must exist, and the name be free. */
export async function createNamespace(db: SqlClient, warehouseId: string, levels: string[], properties: Record<string, string>): Promise<void> {
  // The REST document declares no 404 for createNamespace: a missing parent is a bad request.
  if (levels.length > 1 && !(await getNamespace(db, warehouseId, levels.slice(0, -1)))) {
    throw badRequest(`Parent namespace does not exist: ${levels.slice(0, -1).join('.')}`);
  }
  if (!(await insertNamespace(db, warehouseId, levels, properties))) throw alreadyExists(`Namespace ${levels.join('.')}`);
}

/** Drops the namespace; 409 NamespaceNotEmptyException while a table, view, function or child namespace is in it. */
export async function dropNamespace(db: SqlClient, warehouseId: string, levels: string[]): Promise<void> {
  await requireNamespace(db, warehouseId, levels);
  const contents = await namespaceContents(db, warehouseId, levels);
  if (contents.tables || contents.children) {
    throw new IcebergError(409, 'NamespaceNotEmptyException',
      `Namespace ${levels.join('.')} is not empty: ${contents.tables} tables, views or functions, ${contents.children} namespaces`);
  }
  await deleteNamespace(db, warehouseId, levels);
}

/** Removes then sets properties; a key may be removed or updated, not both (422). */
export async function updateNamespaceProperties(
  pool: Pool, warehouseId: string, levels: string[], removals: string[], updates: Record<string, string>,
): Promise<PropertyChange> {
  const both = removals.filter((k) => k in updates);
  if (both.length) throw new IcebergError(422, 'UnprocessableEntityException', `Keys both removed and updated: ${both.join(', ')}`);
  const change = await changeNamespaceProperties(pool, warehouseId, levels, removals, updates);
  if (!change) throw noSuchNamespace(levels);
  return change;
}
