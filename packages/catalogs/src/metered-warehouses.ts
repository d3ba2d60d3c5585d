import type { PrismaClient } from '@floe/db';

// The warehouses the metering worker measures and enforces. It reads the
// table (the control plane writes it) and writes one column only:
// `read_only_since`, the mark of its enforcement pass.

const LIVE = ['provisioning', 'ready'];

export interface MeteredWarehouse {
  id: string;
  tableBucket: string;
  blobBucket: string;
  orgId: string | null;
  readOnlySince: Date | null;
  /** Set while public: the table bucket is then in the public tier (packages/db/src/limits.ts tierBuckets). */
  publicSince: Date | null;
}

const fields = { id: true, tableBucket: true, blobBucket: true, orgId: true, readOnlySince: true, publicSince: true } as const;

/** Every live catalog: the sweep's worklist. */
export async function liveWarehouses(db: PrismaClient): Promise<MeteredWarehouse[]> {
  return db.warehouse.findMany({ where: { status: { in: LIVE } }, select: fields, orderBy: { id: 'asc' } });
}

export async function liveWarehouse(db: PrismaClient, id: string): Promise<MeteredWarehouse | null> {
  return db.warehouse.findFirst({ where: { id, status: { in: LIVE } }, select: fields });
}

/** The live catalogs of a quota scope: an organisation, or an owner's projects outside any. */
export async function scopeWarehouses(db: PrismaClient, scope: { orgId: string | null; ownerId: string }): Promise<MeteredWarehouse[]> {
  if (scope.orgId) return db.warehouse.findMany({ where: { orgId: scope.orgId, status: { in: LIVE } }, select: fields });
  const projects = await db.project.findMany({ where: { orgId: null, ownerId: scope.ownerId }, select: { id: true } });
  return db.warehouse.findMany({ where: { orgId: null, projectId: { in: projects.map((p) => p.id) }, status: { in: LIVE } }, select: fields });
}

/** Marks a catalog read-only (its buckets frozen); keeps the first mark. */
export async function markReadOnly(db: PrismaClient, id: string): Promise<void> {
  await db.warehouse.updateMany({ where: { id, readOnlySince: null }, data: { readOnlySince: new Date() } });
}

export async function clearReadOnly(db: PrismaClient, id: string): Promise<void> {
  await db.warehouse.updateMany({ where: { id }, data: { readOnlySince: null } });
}
