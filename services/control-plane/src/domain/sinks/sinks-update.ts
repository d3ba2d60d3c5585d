import type { VisibleWarehouse } from '@floe/catalogs';
import type { PrismaClient } from '@floe/db';
import { conflict, notFound } from '@floe/http';
import { TABLE_MISSING } from '@floe/ingest';
import { changeSinkSettings, DISABLED_BY_USER, type SinkSettings, type SinkSettingsAsk } from '@floe/ingest/sink-store';
import { sinksOf, type SinkRecord } from '../../store/sinks';
import { requireAppendableTable, type SinkTables } from './sinks';

// PATCH /v1/sinks/{sink_id}: rename a sink, change its roll settings, disable
// or enable it. The spec lists the route in its error index only; the shape
// is Floe's (docs/api.md). Every asked value is written at once or none is
// (sink-store.ts changeSinkSettings); the roller reads the settings from the
// row at every tick, and the intake routes read the state at every request,
// so a change holds from the answer on.

export type SinkChangeAsk = SinkSettingsAsk;

/** Settings as the API names them, for the answer's `previous` and the audit's `changes` and `previous`. */
const WIRE: Record<keyof SinkSettings, string> = {
  name: 'name', rollSeconds: 'roll_seconds', rollBytes: 'roll_bytes', inactivitySeconds: 'inactivity_seconds', enabled: 'enabled', disabledReason: 'disabled_reason',
};
const wire = (s: Partial<SinkSettings>): Record<string, unknown> =>
  Object.fromEntries(Object.entries(s).map(([k, v]) => [WIRE[k as keyof SinkSettings], v]));

/**
 * Changes a live sink of a catalog the caller writes; the sink as read
 * afterwards, the name this change left it with (a concurrent change may
 * have renamed it since), and what changed with what it replaced (both empty
 * when every asked value was already so). Enabling clears the caller's own
 * disabling at once, and the roller's `table_missing` only once the table is
 * there again and still
 * unpartitioned (else the table's not-found refusal, 404 `table_not_found` or
 * `namespace_not_found`, or 409 `partitioned_table_unsupported`). Refusals:
 * 409 `already_exists` (a live sink of the catalog has the name, as create
 * answers it), 404 `sink_not_found` (deleted meanwhile), 409 `sink_disabled`
 * (a reason this route cannot clear).
 */
export async function changeSink(
  d: { prisma: PrismaClient; tables: SinkTables }, sink: SinkRecord, w: VisibleWarehouse, ask: SinkChangeAsk,
): Promise<{ sink: SinkRecord; name: string; changes: Record<string, unknown>; previous: Record<string, unknown> }> {
  // A caller's own disabling is always theirs to undo; the roller's only once the table is back, looked at through the
  // catalog before the row is locked (no lock is held across a catalog call).
  const clearable = [DISABLED_BY_USER];
  const tableBack = async () => {
    await requireAppendableTable(d.tables, w, sink.namespace, sink.tableName);
    clearable.push(TABLE_MISSING);
  };
  if (ask.enabled === true && sink.state === 'disabled' && sink.disabledReason === TABLE_MISSING) await tableBack();
  let r = await changeSinkSettings(d.prisma, sink.id, ask, clearable);
  // The roller disabled it between the read and the change: the table is looked at now, and the change made again.
  if (r.outcome === 'stays_disabled' && r.disabledReason === TABLE_MISSING && !clearable.includes(TABLE_MISSING)) {
    await tableBack();
    r = await changeSinkSettings(d.prisma, sink.id, ask, clearable);
  }
  switch (r.outcome) {
    case 'deleted': throw notFound('sink_not_found', `sink ${sink.id} was deleted`);
    case 'name_taken': throw conflict('already_exists', `a sink named ${ask.name} already exists in this catalog`, { field: 'name' });
    case 'stays_disabled':
      throw conflict('sink_disabled', `sink ${sink.name} is disabled (${r.disabledReason ?? 'no reason given'}) and cannot be enabled here`, { disabled_reason: r.disabledReason });
    case 'changed': break;
  }
  const [after] = await sinksOf(d.prisma, { warehouseIds: [w.id], includeDeleted: true, id: sink.id });
  return { sink: after, name: r.name, changes: wire(r.changed), previous: wire(r.previous) };
}
