import { Prisma, type Db, type PrismaClient } from '@floe/db';
import type { DeviceOptions } from './device-options';

// The sink record's one writer, beside the ledger's (ledger-store.ts): a
// sink made, deleted, renamed, its roll settings changed, disabled or enabled
// by a caller, its device token set or removed — the control plane's sink
// routes call these — and a torn-down catalog's sinks ended with their
// waiting batches discarded, inside the teardown worker's final transaction.
// The roll's side of the row (last roll, rejects, disabling when the table is
// gone) is the ledger's.
//
// Through the Prisma client; records are camelCase. Imported as
// `@floe/ingest/sink-store`, so what imports `@floe/ingest` alone does not
// load the Prisma client.

export interface NewSink {
  id: string;
  name: string;
  warehouseId: string;
  namespace: string;
  tableName: string;
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  sendKeyId: string;
  sendKeyHash: string;
  createdBy: string;
}

/**
 * Inserts a sink; false (nothing written) when a live sink already takes its
 * table or its name in the catalog: the partial unique indexes on live rows
 * (`sinks_live_table_key`, `sinks_live_name_key`) decide, so concurrent
 * creates make one.
 */
export async function insertSink(prisma: PrismaClient, s: NewSink): Promise<boolean> {
  try {
    await prisma.sink.create({ data: { ...s, rollBytes: BigInt(s.rollBytes) } });
    return true;
  } catch (err) {
    if ((err as { code?: unknown }).code === 'P2002') return false;
    throw err;
  }
}

/** Marks a live sink deleted (its first deletion time kept); false when it was deleted already (a concurrent deletion went first). */
export async function markSinkDeleted(prisma: PrismaClient, id: string): Promise<boolean> {
  // Raw: one conditional statement moves the state and keeps a first deletion time (COALESCE), so one of concurrent deletions does it.
  const n = await prisma.$executeRaw`UPDATE sinks SET state = 'deleted', deleted_at = COALESCE(deleted_at, now()) WHERE id = ${id} AND state <> 'deleted'`;
  return n === 1;
}

/** The `disabled_reason` of a sink a caller disabled (PATCH /v1/sinks/{id} `enabled: false`); the roller's own is TABLE_MISSING (roll-report.ts). */
export const DISABLED_BY_USER = 'disabled_by_user';

/** What a caller may change of a live sink; `enabled` is its state (active, or disabled with a reason). */
export interface SinkSettings {
  name: string;
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  enabled: boolean;
  disabledReason: string | null;
}

/** The asked values; what is left out stays. */
export type SinkSettingsAsk = Partial<Omit<SinkSettings, 'disabledReason'>>;

export type SinkSettingsOutcome =
  /** What differed and was written (nothing when every asked value was already so), what it replaced, and the name it left. */
  | { outcome: 'changed'; changed: Partial<SinkSettings>; previous: Partial<SinkSettings>; name: string }
  | { outcome: 'deleted' }
  | { outcome: 'name_taken' }
  | { outcome: 'stays_disabled'; disabledReason: string | null };

const SETTINGS: ReadonlyArray<keyof SinkSettings> = ['name', 'rollSeconds', 'rollBytes', 'inactivitySeconds', 'enabled', 'disabledReason'];

/**
 * Changes a live sink's settings all at once or not at all: its row is
 * locked, the asked values that differ are written in one statement, and the
 * values they replaced are returned — so of concurrent changes each sees the
 * one committed before it, and none leaves a mix of two. `enabled: false`
 * disables an active sink with DISABLED_BY_USER (a disabled one keeps its
 * reason); `enabled: true` makes a disabled sink active only when its reason
 * is one of `clearable`. Nothing is written when the sink was deleted, when
 * a live sink of its catalog has the asked name (the partial unique index
 * `sinks_live_name_key` decides), or when it stays disabled.
 */
export async function changeSinkSettings(
  prisma: PrismaClient, id: string, ask: SinkSettingsAsk, clearable: readonly string[],
): Promise<SinkSettingsOutcome> {
  try {
    return await prisma.$transaction(async (tx): Promise<SinkSettingsOutcome> => {
      // Raw: Prisma cannot lock a row; the lock is held to the end, so `previous` is exactly what this change replaced.
      const [row] = await tx.$queryRaw<Array<{
        name: string; state: string; disabled_reason: string | null; roll_seconds: number; roll_bytes: bigint; inactivity_seconds: number | null;
      }>>`SELECT name, state, disabled_reason, roll_seconds, roll_bytes, inactivity_seconds FROM sinks WHERE id = ${id} FOR UPDATE`;
      if (!row || row.state === 'deleted') return { outcome: 'deleted' };
      const before: SinkSettings = {
        name: row.name, rollSeconds: row.roll_seconds, rollBytes: Number(row.roll_bytes), inactivitySeconds: row.inactivity_seconds,
        enabled: row.state === 'active', disabledReason: row.disabled_reason,
      };
      const after: SinkSettings = {
        ...before,
        ...(ask.name !== undefined ? { name: ask.name } : {}),
        ...(ask.rollSeconds !== undefined ? { rollSeconds: ask.rollSeconds } : {}),
        ...(ask.rollBytes !== undefined ? { rollBytes: ask.rollBytes } : {}),
        ...(ask.inactivitySeconds !== undefined ? { inactivitySeconds: ask.inactivitySeconds } : {}),
      };
      if (ask.enabled === false && before.enabled) Object.assign(after, { enabled: false, disabledReason: DISABLED_BY_USER });
      if (ask.enabled === true && !before.enabled) {
        if (!clearable.includes(before.disabledReason ?? '')) return { outcome: 'stays_disabled', disabledReason: before.disabledReason };
        Object.assign(after, { enabled: true, disabledReason: null });
      }
      const differ = SETTINGS.filter((k) => after[k] !== before[k]);
      if (!differ.length) return { outcome: 'changed', changed: {}, previous: {}, name: before.name };
      await tx.sink.update({
        where: { id },
        data: {
          name: after.name, rollSeconds: after.rollSeconds, rollBytes: BigInt(after.rollBytes), inactivitySeconds: after.inactivitySeconds,
          state: after.enabled ? 'active' : 'disabled', disabledReason: after.disabledReason,
        },
      });
      const pick = (s: SinkSettings) => Object.fromEntries(differ.map((k) => [k, s[k]])) as Partial<SinkSettings>;
      return { outcome: 'changed', changed: pick(after), previous: pick(before), name: after.name };
    }, { maxWait: 10_000, timeout: 15_000 });
  } catch (err) {
    if ((err as { code?: unknown }).code === 'P2002') return { outcome: 'name_taken' };
    throw err;
  }
}

/** Sets (or replaces) a sink's device token and options; when it was set. */
export async function setDeviceToken(db: Db, id: string, tokenHash: string, options: DeviceOptions): Promise<Date> {
  const { deviceTokenAt } = await db.sink.update({
    where: { id },
    data: { deviceTokenHash: tokenHash, deviceOptions: { ...options, preset_params: { ...options.preset_params } }, deviceTokenAt: new Date() },
    select: { deviceTokenAt: true },
  });
  return deviceTokenAt!;
}

/** Removes a sink's device token; whether it had one (of concurrent removals, one did). */
export async function clearDeviceToken(prisma: PrismaClient, id: string): Promise<boolean> {
  const { count } = await prisma.sink.updateMany({ where: { id, deviceTokenHash: { not: null } }, data: { deviceTokenHash: null, deviceOptions: Prisma.DbNull, deviceTokenAt: null } });
  return count === 1;
}

/**
 * A torn-down catalog's sinks end, inside the teardown's transaction: every
 * sink not yet deleted is marked deleted at `at`, and the waiting batches of
 * all its sinks (deleted ones included) are discarded at `at` — their objects
 * went with the blob bucket. Pass the teardown's completion time as `at`, so
 * these rows and the tombstone agree. Counts what it changed.
 */
export async function endSinksOfWarehouse(
  tx: Prisma.TransactionClient, warehouseId: string, at: Date = new Date(),
): Promise<{ sinksDeleted: number; batchesDiscarded: number }> {
  const sinks = await tx.sink.findMany({ where: { warehouseId }, select: { id: true } });
  const deleted = await tx.sink.updateMany({ where: { warehouseId, state: { not: 'deleted' } }, data: { state: 'deleted', deletedAt: at } });
  const discarded = await tx.sinkBatch.updateMany({ where: { sinkId: { in: sinks.map((s) => s.id) }, state: 'pending' }, data: { state: 'discarded', committedAt: at } });
  return { sinksDeleted: deleted.count, batchesDiscarded: discarded.count };
}
