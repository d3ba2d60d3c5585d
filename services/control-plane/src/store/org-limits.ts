import type { Db, PrismaClient } from '@floe/db';
import { tierBuckets } from '@floe/db/limits';

// An organisation's plan and overrides (`org_limits`) and the operator's
// changes to them (`org_limits_audit`): the operator routes' data. Reading the
// effective limits is packages/db/src/limits.ts's; this writes them.

export interface OrgRef {
  id: string;
  handle: string;
  name: string;
}

export interface LimitsRow {
  plan: string;
  overrides: unknown;
  note: string | null;
  updatedAt: Date | null;
  updatedBy: string | null;
}

export interface LimitsChangeRow {
  id: bigint;
  actorId: string | null;
  plan: string;
  previousPlan: string;
  overrides: unknown;
  previousOverrides: unknown;
  note: string | null;
  createdAt: Date;
}

/** An organisation by id or handle, whatever its status. */
export function organizationByIdOrHandle(db: Db, idOrHandle: string): Promise<OrgRef | null> {
  return db.organization.findFirst({ where: { OR: [{ id: idOrHandle }, { handle: idOrHandle }] }, select: { id: true, handle: true, name: true } });
}

export function limitsRowOf(db: Db, orgId: string): Promise<LimitsRow | null> {
  return db.orgLimits.findUnique({ where: { orgId }, select: { plan: true, overrides: true, note: true, updatedAt: true, updatedBy: true } });
}

/** Changes newest first. */
export function limitsChanges(db: Db, orgId: string, take: number): Promise<LimitsChangeRow[]> {
  return db.orgLimitsChange.findMany({ where: { orgId }, orderBy: [{ createdAt: 'desc' }, { id: 'desc' }], take });
}

/**
 * Runs `fn` holding the organisation's `org_limits` row locked (made on first
 * use), so concurrent changes of one organisation apply one after another.
 * The bucket quotas are re-set inside: the last change to commit is the last to set them.
 */
export function withLimitsLocked<T>(prisma: PrismaClient, orgId: string, fn: (tx: Db, row: LimitsRow) => Promise<T>): Promise<T> {
  return prisma.$transaction(async (tx) => {
    // Raw: ON CONFLICT DO NOTHING then FOR UPDATE is the lock; Prisma's upsert would write the row on every call.
    await tx.$executeRaw`INSERT INTO org_limits (org_id) VALUES (${orgId}) ON CONFLICT DO NOTHING`;
    const rows = await tx.$queryRaw<Array<{ plan: string; overrides: unknown; note: string | null; updated_at: Date; updated_by: string | null }>>`
      SELECT plan, overrides, note, updated_at, updated_by FROM org_limits WHERE org_id = ${orgId} FOR UPDATE`;
    const r = rows[0];
    return fn(tx, { plan: r.plan, overrides: r.overrides, note: r.note, updatedAt: r.updated_at, updatedBy: r.updated_by });
  }, { maxWait: 30_000, timeout: 60_000 });
}

/** The new plan, overrides and note, and their row in the limits audit, in the caller's transaction. */
export async function recordLimitsChange(tx: Db, c: { orgId: string; actorId: string; plan: string; previousPlan: string; overrides: object; previousOverrides: object; note: string | null }): Promise<LimitsChangeRow> {
  await tx.orgLimits.update({ where: { orgId: c.orgId }, data: { plan: c.plan, overrides: c.overrides, note: c.note, updatedAt: new Date(), updatedBy: c.actorId } });
  return tx.orgLimitsChange.create({
    data: { orgId: c.orgId, actorId: c.actorId, plan: c.plan, previousPlan: c.previousPlan, overrides: c.overrides, previousOverrides: c.previousOverrides, note: c.note },
  });
}

/**
 * The buckets of the organisation's live catalogs whose hard quota follows a
 * limit, by tier (packages/db/src/limits.ts tierBuckets): private buckets of
 * catalogs not frozen by the enforcement pass (a frozen one's quota is the
 * freeze), and every public catalog's table bucket (the freeze never takes it).
 */
export async function quotaBucketsOf(db: Db, orgId: string): Promise<{ private: string[]; public: string[] }> {
  const rows = await db.warehouse.findMany({
    where: { orgId, status: { in: ['provisioning', 'ready'] } },
    select: { tableBucket: true, blobBucket: true, readOnlySince: true, publicSince: true },
    orderBy: { createdAt: 'asc' },
  });
  return {
    private: rows.flatMap((w) => (w.readOnlySince ? [] : tierBuckets(w).private)),
    public: rows.flatMap((w) => tierBuckets(w).public),
  };
}
