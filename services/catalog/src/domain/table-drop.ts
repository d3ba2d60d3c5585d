import type { Pool } from 'pg';
import { deleteTable, deleteTableAt, dropWithPurge, findTable, type TableRow } from '@floe/catalog-store';
import { IcebergError, noSuchTable } from '../errors';
import { readMetadata, type MetadataReadDeps } from '../metadata-files';
import type { WarehouseRow } from '../store/warehouses';
import { metadataTableLocation } from './table-load';

// DELETE …/tables/{table}: the row goes; with purgeRequested, the table's
// location is recorded in the same transaction for the purge pass (purge.ts),
// which deletes its files after the answer. Concurrent drops of one table:
// one removes the row, the others find it gone (NoSuchTableException).
//
// POST …/unregister removes the row and leaves every file in place, answering
// the last metadata location and its metadata, which must hold every commit
// made before it: the row goes only while its pointer is the one read, so a
// commit that lands in between sends the unregister round again, and a commit
// after it finds no table.

export interface DropDeps extends MetadataReadDeps {
  db: Pool;
}

/** `purge`: who asked for the table's files to go too; null drops the row only. */
export async function dropTable(d: DropDeps, wh: WarehouseRow, ns: string[], t: TableRow, purge: { requestedBy: string } | null): Promise<void> {
  let dropped: boolean;
  if (purge) {
    const location = t.location ?? (await metadataTableLocation(d, wh, t.metadataLocation!));
    dropped = await dropWithPurge(d.db, { id: t.id, warehouseId: wh.id, location, tableIdent: [...ns, t.name].join('.'), requestedBy: purge.requestedBy });
  } else {
    dropped = await deleteTable(d.db, t.id);
  }
  if (!dropped) throw noSuchTable(ns, t.name);
}

export interface UnregisteredTable {
  metadataLocation: string;
  metadataText: string;
}

/** Commits racing an unregister can move the pointer this many times before it gives up (503). */
const UNREGISTER_ROUNDS = 20;

export async function unregisterTable(d: DropDeps, wh: WarehouseRow, ns: string[], name: string): Promise<UnregisteredTable> {
  for (let round = 0; round < UNREGISTER_ROUNDS; round++) {
    const t = await findTable(d.db, wh.id, ns, name);
    if (!t?.metadataLocation) throw noSuchTable(ns, name);
    const metadataLocation = t.metadataLocation;
    const metadataText = await readMetadata(d, wh, metadataLocation);
    if (await deleteTableAt(d.db, t.id, metadataLocation)) return { metadataLocation, metadataText };
  }
  throw new IcebergError(503, 'ServiceUnavailableException', `Table ${[...ns, name].join('.')} kept changing while it was being unregistered; try again`);
}
