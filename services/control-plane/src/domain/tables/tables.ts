import { GetObjectCommand } from '@aws-sdk/client-s3';
import type { Request } from 'express';
import { type VisibleWarehouse, readWriteKeys } from '@floe/catalogs';
import type { Db } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { badRequest, type SqlClient } from '@floe/http';
import { parseS3Location, type StorageProvider } from '@floe/storage';
import type { Schema, TableUpdate } from '@floe/iceberg';
import { CatalogFailure, asCatalogError, dottedLevels, vendedCredentials, type CatalogClient, type LoadTableResult } from '../../catalog-client';
import { refuseOverQuota } from '../usage/quota';
import { FORMAT_VERSIONS } from '../warehouses/plans';
import { catalogTables, isAddressable, nsName } from './catalog-tables';
import { currentSchema, hasGeoColumn, tableView, v3Columns } from './table-view';

// Spec: Tables and credentials — what the table routes do, through the
// Iceberg REST catalog as the warehouse's own identity (the catalog is the
// only writer of table metadata). Level checks are the routes'; these take a
// warehouse the caller may act on.

/**
 * A create's schema as far as the route reads it (a struct of fields with an
 * id, name, required flag and a type); what the types mean is the catalog's
 * to judge, so it is sent on as it came.
 */
export interface SchemaToCreate {
  type: 'struct';
  fields: Array<{ id: number; name: string; required: boolean; type: unknown; [key: string]: unknown }>;
  [key: string]: unknown;
}

export interface TableDeps {
  catalog: CatalogClient;
  prisma: Db;
  /** The pg pool: the audit of a quota refusal. */
  db: SqlClient;
  keyring: Keyring;
  /** The object store as the warehouse's read/write identity: reading a table's metadata and manifests. */
  storage: Pick<StorageProvider, 's3As'>;
}

/** Every namespace of the warehouse (levels), nested ones included. */
export async function listNamespaces(d: Pick<TableDeps, 'catalog'>, w: VisibleWarehouse): Promise<string[][]> {
  return catalogTables(d.catalog).namespaces(w).catch((e) => { throw asCatalogError(e); });
}

/** The tables of one dotted namespace (404 `namespace_not_found` listing what exists), or of every addressable one. */
export async function listTables(d: Pick<TableDeps, 'catalog'>, w: VisibleWarehouse, asked: string | null) {
  const { namespaces, tablesIn, namespaceNotFound } = catalogTables(d.catalog);
  let searched: string[][];
  if (asked) {
    const exists = await d.catalog.namespaceExists(w.id, dottedLevels(asked)).catch((e) => { throw asCatalogError(e); });
    if (!exists) throw await namespaceNotFound(w, asked);
    searched = [dottedLevels(asked)];
  } else {
    // A namespace no path can name cannot be searched; it must not fail the listing of the rest.
    searched = (await namespaces(w).catch((e) => { throw asCatalogError(e); })).filter(isAddressable);
  }
  const tables: Array<{ namespace: string; name: string; table: string }> = [];
  for (const levels of searched) {
    const ns = nsName(levels);
    for (const name of await tablesIn(w, levels).catch((e) => { throw asCatalogError(e); })) tables.push({ namespace: ns, name, table: `${ns}.${name}` });
  }
  return { searched: searched.map(nsName), tables };
}

/** The format version a create asks for (null: the catalog's default); 400 for anything but 2 or 3. */
export function requestedFormatVersion(v: unknown): 2 | 3 | null {
  if (v === undefined || v === null) return null;
  if (v !== 2 && v !== 3) throw badRequest('invalid_value', 'format_version must be 2 or 3', { field: 'format_version', versions: FORMAT_VERSIONS });
  return v;
}

/**
 * POST /v1/tables after the level check: the table, made through the catalog
 * (its namespace too, when missing), in the version asked or the catalog's
 * default; refused over the storage limit (audited against `req`).
 */
export async function createTable(d: Pick<TableDeps, 'catalog' | 'prisma' | 'db'>, req: Request, w: VisibleWarehouse, t: { namespace: string; name: string; schema: SchemaToCreate; requested: 2 | 3 | null }) {
  const version = t.requested ?? w.defaultFormatVersion;
  if (version === 2 && hasGeoColumn(t.schema)) {
    throw badRequest('invalid_value', 'geometry and geography columns need format version 3', {
      field: 'schema', remedy: 'send "format_version": 3, or set the catalog default with PATCH /v1/warehouses/{id}',
    });
  }
  await refuseOverQuota(d, req, w, 'table.create');
  const { metadata } = await createThroughCatalog(d.catalog, w, t.namespace, t.name, t.schema, version);
  const real = metadata['format-version'] as 2 | 3;
  return { metadata, version, real, v3Columns: real === 3 ? v3Columns(currentSchema(metadata)) : null };
}

/** GET /v1/table: the Table resource, its row count read from the manifests as the warehouse's own identity. */
export async function readTable(d: TableDeps, w: VisibleWarehouse, namespace: string, name: string) {
  const loaded = await catalogTables(d.catalog).load(w, namespace, name);
  const s3 = d.storage.s3As(await readWriteKeys(d.prisma, d.keyring, w.id));
  const read = async (path: string) => {
    const out = await s3.send(new GetObjectCommand({ Bucket: w.tableBucket, Key: parseS3Location(path, 'read table file').key }));
    return new Uint8Array(await out.Body!.transformToByteArray());
  };
  return tableView(namespace, name, loaded, read);
}

/** PATCH /v1/table: sets and removes properties in one commit, asserting the table is the one loaded. */
export async function updateTableProperties(d: Pick<TableDeps, 'catalog'>, w: VisibleWarehouse, namespace: string, name: string, set: Record<string, string>, remove: string[]) {
  const before = await catalogTables(d.catalog).load(w, namespace, name);
  const tableUuid = before.metadata['table-uuid'] as string;
  const previous = before.metadata.properties ?? {};
  const updates: TableUpdate[] = [];
  if (Object.keys(set).length) updates.push({ action: 'set-properties', updates: set });
  if (remove.length) updates.push({ action: 'remove-properties', removals: remove });
  const after = await d.catalog.commitTable(w.id, { namespace: dottedLevels(namespace), name }, {
    requirements: [{ type: 'assert-table-uuid', uuid: tableUuid }],
    updates,
  }).catch((err) => { throw asCatalogError(err); });
  return { tableUuid, previous, after };
}

/** POST /v1/credentials: the catalog's vended storage session for one table's location. */
export async function vendTableCredentials(d: Pick<TableDeps, 'catalog'>, w: VisibleWarehouse, namespace: string, name: string) {
  const loaded = await catalogTables(d.catalog).load(w, namespace, name, { vend: true });
  const location = loaded.metadata.location;
  return { tableUuid: loaded.metadata['table-uuid'] as string, location, keyPrefix: `${parseS3Location(location).key}/`, credentials: vendedCredentials(loaded) };
}


export function v3Warnings(): string[] {
  return ['Format version 3: check that every engine that reads this table supports v3 (see GET /v1/config/formats).', 'Version 3 tables are not compacted yet; snapshot expiry and orphan cleanup do run.'];
}

async function createThroughCatalog(catalog: CatalogClient, w: VisibleWarehouse, ns: string, name: string, schema: SchemaToCreate, version: 2 | 3): Promise<LoadTableResult> {
  const levels = dottedLevels(ns);
  // The route checks the schema only as far as it reads it; the types are the catalog's to judge (a refusal is its catalog_error).
  const create = () => catalog.createTable(w.id, levels, { name, schema: schema as Schema, properties: { 'format-version': String(version) } });
  try {
    return await create();
  } catch (err) {
    if (!(err instanceof CatalogFailure && err.type === 'NoSuchNamespaceException')) throw asCatalogError(err);
  }
  // The namespace is created on demand, each missing level in turn (a concurrent creation is as good as ours).
  for (let i = 1; i <= levels.length; i++) {
    await catalog.createNamespace(w.id, levels.slice(0, i)).catch((e) => {
      if (!(e instanceof CatalogFailure && e.status === 409)) throw asCatalogError(e);
    });
  }
  return create().catch((err) => { throw asCatalogError(err); });
}

