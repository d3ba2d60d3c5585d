import { randomUUID } from 'node:crypto';
import { nameTaken, overlappingHolder, type PointerMove } from '@floe/catalog-store';
import type { SqlClient } from '@floe/http';
import { writeAndPlace, type CommitDeps } from '../commit';
import { alreadyExists, badRequest } from '../errors';
import { checkedLocation, derivedLocation, isWithin, locationTaken } from '../locations';
import type { WarehouseRow } from '../store/warehouses';

// The steps a table's and a view's create and register share ("tabular", as
// lakekeeper calls either): the name must be free in its namespace (tables
// and views share one name space), the location is the one asked for held
// to the rules (locations.ts) or one derived from the names, no other holder
// may have it, and the first metadata file is written before the pointer.
// `noun` names the kind in refusals, as commit.ts placePointer does.

export type Noun = 'Table' | 'View';

/** What a new pointer names. */
export interface Identifier {
  namespace: string[];
  name: string;
  kind: 'table' | 'view';
}

/** AlreadyExistsException when a table or view has the name; `what` names it in the refusal ("Table", "View or table"). */
export async function requireNameFree(db: SqlClient, warehouseId: string, ns: string[], name: string, what: 'Table' | 'View or table'): Promise<void> {
  if (await nameTaken(db, warehouseId, ns, name)) throw alreadyExists(`${what} ${[...ns, name].join('.')}`);
}

/** The location a create asks for, held to the rules, or one derived from the names when it asks for none. */
export function newLocation(bucket: string, ns: string[], name: string, asked: unknown, noun: Noun): string {
  if (asked === undefined || asked === null) return derivedLocation(bucket, ns, name, randomUUID().replace(/-/g, ''));
  return checkedLocation(asked, bucket, `${noun} location`);
}

/** An early refusal of a location another table, view or unfinished purge holds; the pointer write checks again under the warehouse's location lock. */
export async function requireLocationFree(db: SqlClient, warehouseId: string, location: string, noun: Noun): Promise<void> {
  const holder = await overlappingHolder(db, warehouseId, location);
  if (holder) throw locationTaken(`${noun} location`, location, holder);
}

/** A registered metadata file must lie within the location it names, so the table or view owns every file it names. */
export function requireWithin(metadataLocation: string, location: string, kind: Identifier['kind']): void {
  if (!isWithin(metadataLocation, location)) throw badRequest(`metadata-location ${metadataLocation} must lie within the ${kind}'s location ${location}`);
}

/** The pointer of a new table or view: a new row, its location new to it. */
export function newPointer(ident: Identifier, metadataLocation: string, location: string): PointerMove {
  return { id: randomUUID(), expectedVersion: null, namespace: ident.namespace, name: ident.name, kind: ident.kind, metadataLocation, location, relocated: true };
}

/** A new table's or view's first metadata file, then its pointer (commit.ts writeAndPlace: the file goes again when the pointer certainly did not move). */
export function writeFirstVersion(d: CommitDeps, wh: WarehouseRow, ident: Identifier, metadataLocation: string, location: string, text: string): Promise<void> {
  return writeAndPlace(d, wh, newPointer(ident, metadataLocation, location), text, ident.kind === 'table' ? 'Table' : 'View');
}
