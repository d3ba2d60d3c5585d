import type { Db, Prisma, PrismaClient } from '@floe/db';
import { StoredDeviceOptions, type DeviceOptions, type RecentRejectRoll } from '@floe/ingest';

// Sink rows with their batch counters, as the sink routes report them, and
// the reads and the lock around a device token's grant. Reads only: every
// write of a sink is packages/ingest's — made, deleted, settings changed,
// disabled or enabled by a caller, device token in
// `@floe/ingest/sink-store`, the roll's side of the row (last roll, rejects,
// disabling, recent rejects) in the sink ledger (`@floe/ingest/ledger-store`).
// Through the Prisma client.

export type SinkState = 'active' | 'disabled' | 'deleted';

export interface SinkRecord {
  id: string;
  name: string;
  warehouseId: string;
  namespace: string;
  tableName: string;
  state: SinkState;
  disabledReason: string | null;
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  sendKeyId: string;
  tableChangesApplied: boolean;
  lastRoll: Record<string, unknown> | null;
  rejectedRows: number;
  rejectFiles: number;
  createdBy: string | null;
  createdAt: Date;
  deletedAt: Date | null;
  /** Device route: whether a token is set, since when, and the body-level options. */
  device: { token: boolean; tokenAt: Date | null; options: DeviceOptions | null };
  /** Intake since the sink was made, kept after the batch ledger is pruned. */
  received: { batches: number; deviceBatches: number; rows: number; rejected: number; ingestBytes: number; storedBytes: number };
  counts: { pendingBatches: number; pendingBytes: number; oldestPending: Date | null; rolls: number };
  /** The latest rolls with rejects, newest first (packages/ingest RecentRejectRoll). */
  recentRejects: RecentRejectRoll[];
  /** Batches committed in the last hour and the 99th percentile of their send-to-commit seconds (null with none). */
  lastHour: { committed: number; p99Seconds: number | null };
}

const STATES: readonly SinkState[] = ['active', 'disabled', 'deleted'];
const stateOf = (s: string): SinkState => STATES.find((x) => x === s) ?? 'active';
const objectOf = (v: Prisma.JsonValue | null): Record<string, unknown> | null => (v !== null && typeof v === 'object' && !Array.isArray(v) ? v : null);

export interface SinkFilter {
  warehouseIds: string[];
  includeDeleted?: boolean;
  /** Only the sink of this id, or of this id or name. */
  id?: string;
  idOrName?: string;
}

/** Sinks of the warehouses (deleted ones only when asked), oldest first, with their batch and intake counters. */
export async function sinksOf(prisma: PrismaClient, f: SinkFilter): Promise<SinkRecord[]> {
  const rows = await prisma.sink.findMany({
    where: {
      warehouseId: { in: f.warehouseIds },
      ...(f.includeDeleted ? {} : { state: { not: 'deleted' } }),
      ...(f.id !== undefined ? { id: f.id } : {}),
      ...(f.idOrName !== undefined ? { OR: [{ id: f.idOrName }, { name: f.idOrName }] } : {}),
    },
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
  });
  if (!rows.length) return [];
  const sinkId = { in: rows.map((r) => r.id) };
  const [pending, rolled, intake, lastHour] = await Promise.all([
    prisma.sinkBatch.groupBy({ by: ['sinkId'], where: { sinkId, state: 'pending' }, _count: { _all: true }, _sum: { bytes: true }, _min: { receivedAt: true } }),
    // A roll is a distinct snapshot among the sink's batches.
    prisma.sinkBatch.groupBy({ by: ['sinkId', 'snapshotId'], where: { sinkId, snapshotId: { not: null } } }),
    prisma.ingestUsage.groupBy({
      by: ['sinkId'], where: { sinkId },
      _sum: { batches: true, deviceBatches: true, rows: true, rejected: true, ingestBytes: true, storedBytes: true },
    }),
    // Raw: a percentile (which the client cannot say), over the last hour on the database's clock.
    prisma.$queryRaw<Array<{ sink_id: string; committed: number; p99: number | null }>>`
      SELECT sink_id, count(*)::int AS committed,
             percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM committed_at - received_at))::float8 AS p99
        FROM sink_batches
       WHERE sink_id = ANY(${rows.map((r) => r.id)}::text[]) AND state = 'committed' AND committed_at > now() - interval '1 hour'
       GROUP BY sink_id`,
  ]);
  const lastHourOf = new Map(lastHour.map((l) => [l.sink_id, l]));
  const pendingOf = new Map(pending.map((p) => [p.sinkId, p]));
  const intakeOf = new Map(intake.map((i) => [i.sinkId, i._sum]));
  const rollsOf = new Map<string, number>();
  for (const r of rolled) rollsOf.set(r.sinkId, (rollsOf.get(r.sinkId) ?? 0) + 1);
  return rows.map((r) => {
    const p = pendingOf.get(r.id);
    const i = intakeOf.get(r.id);
    return {
      id: r.id, name: r.name, warehouseId: r.warehouseId, namespace: r.namespace, tableName: r.tableName, state: stateOf(r.state),
      disabledReason: r.disabledReason, rollSeconds: r.rollSeconds, rollBytes: Number(r.rollBytes), inactivitySeconds: r.inactivitySeconds,
      sendKeyId: r.sendKeyId, tableChangesApplied: r.tableChangesApplied, lastRoll: objectOf(r.lastRoll), rejectedRows: Number(r.rejectedRows),
      rejectFiles: r.rejectFiles, createdBy: r.createdBy, createdAt: r.createdAt, deletedAt: r.deletedAt,
      device: {
        token: r.deviceTokenHash !== null, tokenAt: r.deviceTokenAt,
        options: r.deviceOptions === null ? null : StoredDeviceOptions.parse(r.deviceOptions),
      },
      received: {
        batches: i?.batches ?? 0, deviceBatches: i?.deviceBatches ?? 0, rows: Number(i?.rows ?? 0),
        rejected: Number(i?.rejected ?? 0), ingestBytes: Number(i?.ingestBytes ?? 0), storedBytes: Number(i?.storedBytes ?? 0),
      },
      counts: {
        pendingBatches: p?._count._all ?? 0, pendingBytes: p?._sum.bytes ?? 0, oldestPending: p?._min.receivedAt ?? null,
        rolls: rollsOf.get(r.id) ?? 0,
      },
      recentRejects: Array.isArray(r.recentRejects) ? (r.recentRejects as unknown as RecentRejectRoll[]) : [],
      lastHour: { committed: lastHourOf.get(r.id)?.committed ?? 0, p99Seconds: lastHourOf.get(r.id)?.p99 ?? null },
    };
  });
}

/** Live sinks of a warehouse that take this name or this table. */
export function sinksClashing(prisma: PrismaClient, s: { warehouseId: string; name: string; namespace: string; tableName: string }) {
  return prisma.sink.findMany({
    where: { warehouseId: s.warehouseId, state: { not: 'deleted' }, OR: [{ name: s.name }, { namespace: s.namespace, tableName: s.tableName }] },
    select: { name: true, namespace: true, tableName: true },
  });
}

/** Whether a sink takes device posts now (read under the scope's lock, so a concurrent grant to it is seen). */
export async function hasDeviceToken(db: Db, id: string): Promise<boolean> {
  const r = await db.sink.findUnique({ where: { id }, select: { deviceTokenHash: true } });
  return r?.deviceTokenHash != null;
}

/**
 * The quota scope of a warehouse's device sinks: its organisation's
 * catalogs, or (outside any organisation) its project owner's catalogs
 * outside any organisation. A catalog outside any project is in no scope
 * (`ownerId` null: nothing to count).
 */
export async function deviceSinkScope(db: Db, warehouseId: string): Promise<{ orgId: string | null; ownerId: string | null }> {
  const mine = await db.warehouse.findUnique({ where: { id: warehouseId }, select: { orgId: true, projectId: true } });
  const project = mine?.projectId ? await db.project.findUnique({ where: { id: mine.projectId }, select: { ownerId: true } }) : null;
  return { orgId: mine?.orgId ?? null, ownerId: project?.ownerId ?? null };
}

/** Held until the transaction ends: device tokens of one scope are granted one at a time, so the count and the grant are one step. */
export async function lockDeviceSinkScope(tx: Prisma.TransactionClient, scope: { orgId: string | null; ownerId: string }): Promise<void> {
  // Raw: Prisma has no advisory locks.
  await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtext(${`device-sinks:${scope.orgId ?? `owner:${scope.ownerId}`}`}))`;
}

/** Sinks that take device posts in a quota scope: an organisation, or an owner's projects outside any. */
export async function deviceSinksOf(prisma: Db, orgId: string | null, ownerId: string): Promise<number> {
  const projectIds = orgId ? undefined
    : (await prisma.project.findMany({ where: { ownerId, orgId: null }, select: { id: true } })).map((p) => p.id);
  const warehouses = await prisma.warehouse.findMany({
    where: orgId ? { orgId, projectId: { not: null } } : { orgId: null, projectId: { in: projectIds } },
    select: { id: true },
  });
  return prisma.sink.count({
    where: { warehouseId: { in: warehouses.map((w) => w.id) }, state: { not: 'deleted' }, deviceTokenHash: { not: null } },
  });
}

/** Live (not deleted) sinks that append to one table, or to any table of one namespace (`tableName` null). */
export function liveSinksOn(prisma: PrismaClient, t: { warehouseId: string; namespace: string; tableName: string | null }) {
  return prisma.sink.findMany({
    where: { warehouseId: t.warehouseId, namespace: t.namespace, state: { not: 'deleted' }, ...(t.tableName === null ? {} : { tableName: t.tableName }) },
    select: { id: true, name: true, namespace: true, tableName: true, state: true },
    orderBy: { createdAt: 'asc' },
  });
}
