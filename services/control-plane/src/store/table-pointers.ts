import type { Db } from '@floe/db';
import { splitNamespace } from '@floe/iceberg';

// The catalog's table pointers (catalog_tables, written by the catalog only),
// read for the public connection: which tables a public catalog holds and
// where each one's current metadata file is. A row holds a namespace's levels
// as one string (@floe/iceberg's joinNamespace).

export interface TablePointer {
  namespace: string[];
  name: string;
  metadataLocation: string;
}

export async function currentTablePointers(db: Db, warehouseId: string): Promise<TablePointer[]> {
  const rows = await db.catalogTable.findMany({
    where: { warehouseId, kind: 'table', metadataLocation: { not: null } },
    select: { namespace: true, name: true, metadataLocation: true },
    orderBy: [{ namespace: 'asc' }, { name: 'asc' }],
  });
  return rows.map((r) => ({ namespace: splitNamespace(r.namespace), name: r.name, metadataLocation: r.metadataLocation! }));
}
