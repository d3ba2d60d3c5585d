import type { PrismaClient } from '@floe/db';
import { splitNamespace } from '@floe/iceberg';
import type { TableRef } from '@floe/catalog-client';

// The tables the sweep looks at: every table (not view) of a live catalog, as
// the catalog records them (catalog_tables; the catalog writes it, this reads).

/** One page of tables after the cursor `after` (a catalog_tables id); `next` is the cursor of the next page, null after the last. */
export async function tablesOfLiveCatalogs(prisma: PrismaClient, after: string, take: number): Promise<{ tables: TableRef[]; next: string | null }> {
  const rows = await prisma.catalogTable.findMany({
    where: { kind: 'table', metadataLocation: { not: null }, id: { gt: after } },
    select: { id: true, warehouseId: true, namespace: true, name: true },
    orderBy: { id: 'asc' },
    take,
  });
  if (rows.length === 0) return { tables: [], next: null };
  const live = new Set((await prisma.warehouse.findMany({
    where: { id: { in: [...new Set(rows.map((r) => r.warehouseId))] }, status: { in: ['ready', 'provisioning'] } },
    select: { id: true },
  })).map((w) => w.id));
  const tables = rows.filter((r) => live.has(r.warehouseId)).map((r) => ({ warehouseId: r.warehouseId, namespace: splitNamespace(r.namespace), table: r.name }));
  return { tables, next: rows.length === take ? rows[rows.length - 1].id : null };
}

/** The organisation a catalog belongs to (the audit event's). */
export async function orgOfWarehouse(prisma: PrismaClient, warehouseId: string): Promise<string | null> {
  return (await prisma.warehouse.findUnique({ where: { id: warehouseId }, select: { orgId: true } }))?.orgId ?? null;
}
