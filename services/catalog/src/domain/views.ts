import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { deleteTable, findTable, type TableRow } from '@floe/catalog-store';
import type { SqlClient } from '@floe/http';
import {
  applyViewUpdates, checkViewRequirements, InvalidUpdateError, MetadataParseError, metadataFileName, newViewMetadata, nextMetadataVersion,
  parseViewMetadata, serializeViewMetadata, type CreateViewRequest, type ViewRequirement, type ViewUpdate,
} from '@floe/iceberg';
import { commitFailed, placePointer, writeAndPlace, type CommitDeps } from '../commit';
import { badRequest, IcebergError } from '../errors';
import { checkedLocation } from '../locations';
import { readMetadata, type MetadataReadDeps } from '../metadata-files';
import type { WarehouseRow } from '../store/warehouses';
import { requireNamespace } from './namespaces';
import { newLocation, newPointer, requireLocationFree, requireNameFree, requireWithin, writeFirstVersion } from './tabular-steps';

// Iceberg views: create, replace (requirements and updates, a new metadata
// file, the compare-and-set), drop and register. Views share the tables'
// pointer store (kind = 'view') and their name space within a namespace; a
// view's metadata files go under `<location>/metadata/`.

export const noSuchView = (ns: string[], name: string) => new IcebergError(404, 'NoSuchViewException', `View does not exist: ${[...ns, name].join('.')}`);

/** The engine's refusals of a view request, metadata file or update, as 400 BadRequestException. */
export function asBadRequest<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof InvalidUpdateError || err instanceof MetadataParseError) throw badRequest(err.message);
    throw err;
  }
}

/** A view version as a create or replace answers it. */
export interface WrittenView {
  metadataLocation: string;
  metadataText: string;
}

const viewMetadataLocation = (location: string, version: number) => `${location}/metadata/${metadataFileName(version, randomUUID())}`;

/** The view, or NoSuchViewException (also when its namespace does not exist, as for tables). */
export async function existingView(db: SqlClient, warehouseId: string, ns: string[], name: string): Promise<TableRow> {
  const v = await findTable(db, warehouseId, ns, name, 'view');
  if (!v || !v.metadataLocation) throw noSuchView(ns, name);
  return v;
}

/** The view's current metadata file as stored (cached, metadata-files.ts). */
export function viewMetadataText(d: MetadataReadDeps, wh: WarehouseRow, v: TableRow): Promise<string> {
  return readMetadata(d, wh, v.metadataLocation!);
}

/** POST …/views: the namespace must exist, the name and the location be free; the first metadata file, then the pointer. */
export async function createView(d: CommitDeps, wh: WarehouseRow, ns: string[], body: CreateViewRequest): Promise<WrittenView> {
  const name = body.name;
  await requireNamespace(d.db, wh.id, ns);
  await requireNameFree(d.db, wh.id, ns, name, 'View or table');
  const location = newLocation(wh.tableBucket, ns, name, body.location, 'View');
  await requireLocationFree(d.db, wh.id, location, 'View');
  const meta = asBadRequest(() => newViewMetadata({
    location, schema: body.schema, viewVersion: body['view-version'], properties: body.properties ?? {},
  }));
  const text = serializeViewMetadata(meta);
  const metadataLocation = viewMetadataLocation(location, 0);
  await writeFirstVersion(d, wh, { namespace: ns, name, kind: 'view' }, metadataLocation, location, text);
  return { metadataLocation, metadataText: text };
}

/** POST …/views/{view}: the requirements checked against the current version, the updates applied, a new file, the compare-and-set. */
export async function replaceView(
  d: CommitDeps, wh: WarehouseRow, ns: string[], v: TableRow, parts: { requirements: ViewRequirement[]; updates: ViewUpdate[] },
): Promise<WrittenView> {
  const current = parseViewMetadata(await readMetadata(d, wh, v.metadataLocation!));
  const failures = checkViewRequirements(current, parts.requirements);
  if (failures.length) throw commitFailed(`Requirement failed: ${failures.map((f) => f.message).join('; ')}`);
  const next = asBadRequest(() => applyViewUpdates(current, parts.updates, { nowMs: Date.now() }));
  const relocated = next.location !== current.location;
  const location = relocated ? checkedLocation(next.location, wh.tableBucket, 'View location') : next.location.replace(/\/+$/, '');
  const text = serializeViewMetadata(next);
  const metadataLocation = viewMetadataLocation(location, nextMetadataVersion(v.metadataLocation));
  await writeAndPlace(d, wh, { id: v.id, expectedVersion: v.version, namespace: ns, name: v.name, kind: 'view', metadataLocation, location, relocated }, text, 'View');
  return { metadataLocation, metadataText: text };
}

/** DELETE …/views/{view}: NoSuchViewException when a concurrent drop removed it first. */
export async function dropView(db: SqlClient, ns: string[], v: TableRow): Promise<void> {
  if (!(await deleteTable(db, v.id))) throw noSuchView(ns, v.name);
}

/**
 * POST …/register-view: adopts a view metadata file already in the table
 * bucket (`text`, as registration.ts read it); its location is held to the
 * rules and must hold the file, and the name must be free.
 */
export async function registerView(db: Pool, wh: WarehouseRow, ns: string[], name: string, metadataLocation: string, text: string): Promise<void> {
  const meta = asBadRequest(() => parseViewMetadata(text));
  const location = checkedLocation(meta.location, wh.tableBucket, 'View location');
  requireWithin(metadataLocation, location, 'view');
  await requireNameFree(db, wh.id, ns, name, 'View or table');
  await placePointer(db, wh.id, newPointer({ namespace: ns, name, kind: 'view' }, metadataLocation, location), 'View');
}
