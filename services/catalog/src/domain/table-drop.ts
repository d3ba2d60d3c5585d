import type { Pool } from 'pg';
import { deleteTable, dropWithPurge, type TableRow } from '@floe/catalog-store';
import { noSuchTable } from '../errors';
import type { MetadataReadDeps } from '../metadata-files';
import type { WarehouseRow } from '../store/warehouses';
import { metadataTableLocation } from './table-load';

// DELETE …/tables/{table}: the row goes; with purgeRequested, the table's
// location is recorded in the same transaction for the purge pass (purge.ts),
// which deletes its files after the answer. Concurrent drops of one table:
// one removes the row, the others find it gone (NoSuchTableException).

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
