import type { Prisma } from '@floe/db';

// A torn-down catalog's rows leave the store here, so this package stays the
// one writer of catalog_tables and catalog_namespaces. The catalog refuses
// every credential of a deleted catalog, so nothing can act through it any
// more; packages/catalogs' teardown calls this inside the transaction that
// records the step, so the rows and the tombstone's counts change together.
//
// Through the Prisma transaction the caller holds, not pg: this is no load or
// commit path, and it must commit with the caller's own writes. Imported as
// `@floe/catalog-store/teardown`, so the catalog's entry loads no Prisma client.
// The catalog's purge records are not removed: the purge pass finishes them
// as refused once the catalog is torn down (purges.ts).

export interface DroppedRows {
  tables: number;
  views: number;
  /** Tables whose location is not inside the catalog's table bucket. */
  refused: number;
}

/**
 * Deletes every table, view, function and namespace of the warehouse and counts what
 * went (a table whose location is not inside `tableBucket` is counted as
 * refused: teardown removes only that bucket, so files elsewhere, had there
 * been any, were never the catalog's to purge).
 */
export async function dropWarehouseRows(tx: Prisma.TransactionClient, warehouseId: string, tableBucket: string): Promise<DroppedRows> {
  const rows = await tx.catalogTable.findMany({ where: { warehouseId }, select: { kind: true, location: true } });
  const inBucket = (loc: string | null) => loc === null || loc.startsWith(`s3://${tableBucket}/`);
  const counts = {
    tables: rows.filter((r) => r.kind === 'table').length,
    views: rows.filter((r) => r.kind !== 'table').length,
    refused: rows.filter((r) => r.kind === 'table' && !inBucket(r.location)).length,
  };
  await tx.catalogTable.deleteMany({ where: { warehouseId } });
  await tx.catalogFunction.deleteMany({ where: { warehouseId } });
  await tx.catalogNamespace.deleteMany({ where: { warehouseId } });
  return counts;
}
