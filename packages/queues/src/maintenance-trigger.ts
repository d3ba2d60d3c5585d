import type { TableMetadata } from '@floe/iceberg';
import { maintenanceJobs, type MaintenanceJob } from './maintenance';
import { rulesCrossed } from './maintenance-rules';
import type { Producers } from './producers';

// The catalog's commit path is where every writer's commit lands — a sink's
// roll, an engine's append, a maintenance run — so it is where a table is
// seen crossing a rule about what commits grow: its snapshots, its small
// files, its metadata. One `maintain` job is queued for the table, keyed by
// it, so the commits that follow join that run while it waits (the worker
// judges the rules again when it starts, so a kind a later commit needed is
// done too); a commit while the run is under way adds nothing, and the first
// commit after it still past a rule queues the next. Never fails the commit
// (it runs after the answer): a refused enqueue is logged, and the hourly
// sweep finds the table anyway.

export interface CommittedTable {
  warehouseId: string;
  namespace: string[];
  name: string;
  /** The metadata the commit made. */
  metadata: TableMetadata;
}

export class MaintenanceOnCommit {
  constructor(private readonly d: { producers: Pick<Producers, 'enqueue'>; logger: { warn(message: string, meta?: Record<string, unknown>): unknown } }) {}

  /** Whether a run was queued (or joined) for the table. */
  async afterCommit(t: CommittedTable, nowMs = Date.now()): Promise<boolean> {
    // The orphan pass is the sweep's (daily); a commit judges what commits grow.
    const hits = rulesCrossed(t.metadata, { nowMs, lastOrphanPassMs: nowMs, orphanPassEveryMs: Number.POSITIVE_INFINITY })
      .filter((h) => h.kind !== 'remove_orphans');
    if (hits.length === 0) return false;
    const job: MaintenanceJob = {
      warehouse_id: t.warehouseId, namespace: t.namespace, table: t.name, kinds: hits.map((h) => h.kind),
      trigger: { type: 'rule', detail: `${hits.map((h) => `${h.kind}: ${h.detail}`).join('; ')} (seen at a commit${writerOf(t.metadata)})`.slice(0, 500) }, requested_by: null,
    };
    try {
      await this.d.producers.enqueue(maintenanceJobs.maintain, job);
      return true;
    } catch (err) {
      this.d.logger.warn('a maintenance run could not be queued after a commit; the sweep will find the table', { warehouse_id: t.warehouseId, table: [...t.namespace, t.name].join('.'), err: (err as Error).message });
      return false;
    }
  }
}

/** Who made the head, in words: a sink's roll, or the engine that says its name. */
function writerOf(m: TableMetadata): string {
  const id = m['current-snapshot-id'];
  const head = (m.snapshots ?? []).find((s) => s['snapshot-id'] === id);
  const sink = head?.summary?.['floe.sink-id'];
  if (sink) return ` by sink ${sink}'s roll`;
  const engine = head?.summary?.['engine-name'];
  return engine ? ` by ${engine}` : '';
}
