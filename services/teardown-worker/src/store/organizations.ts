import type { PrismaClient } from '@floe/db';

// Organisations left without members, as the erasure job finds them (packages/accounts erases them).

/** Organisations marked `deleting` that no one has joined since and that hold no catalog any more (a catalog is erased by its own teardown). */
export async function erasableOrganizations(prisma: PrismaClient): Promise<string[]> {
  // Raw: "no member and no live catalog" is two anti-joins (no relations declared).
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT o.id FROM organizations o
     WHERE o.status = 'deleting'
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = o.id)
       AND NOT EXISTS (SELECT 1 FROM warehouses w WHERE w.org_id = o.id AND w.status IN ('creating', 'provisioning', 'ready', 'deleting'))
     ORDER BY o.created_at LIMIT 100`;
  return rows.map((r) => r.id);
}

/** Live catalogs of organisations marked `deleting` that no one has joined since: erasure deletes them first. */
export async function catalogsOfAbandonedOrganizations(prisma: PrismaClient): Promise<string[]> {
  // Raw: "no member" is an anti-join (no relations declared).
  const rows = await prisma.$queryRaw<Array<{ id: string }>>`
    SELECT w.id FROM warehouses w JOIN organizations o ON o.id = w.org_id
     WHERE o.status = 'deleting' AND w.status IN ('provisioning', 'ready')
       AND NOT EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = o.id)
     ORDER BY w.created_at LIMIT 100`;
  return rows.map((r) => r.id);
}
