import { MAINTENANCE_JOB_OPTIONS, QUEUES, maintenanceJobId, rulesCrossed, type MaintenanceJob, type Producers } from '@floe/queues';
import type { TableMetadata } from '@floe/iceberg';
import type { Logger } from '@floe/http';
import type { SinkRollJob } from '@floe/queues';
import { tableOf } from './table';

// A roll is the writer that sees a sink table grow: when the table as the
// roll committed on crossed a maintenance rule about its snapshots or
// metadata (packages/queues maintenance-rules.ts), one `maintain` job is
// queued for it, keyed by the table, so the rolls that follow join it rather
// than queue more. Never fails the roll: a refused enqueue is logged, and the
// hourly sweep finds the table anyway.

export async function queueMaintenanceIfDue(
  d: { producers: Pick<Producers, 'add'>; logger: Logger }, job: SinkRollJob, committedOn: TableMetadata, nowMs = Date.now(),
): Promise<boolean> {
  // The orphan pass is the sweep's (daily); a roll judges what it grows.
  const hits = rulesCrossed(committedOn, { nowMs, lastOrphanPassMs: nowMs, orphanPassEveryMs: Number.POSITIVE_INFINITY })
    .filter((h) => h.kind !== 'remove_orphans');
  if (hits.length === 0) return false;
  const t = tableOf(job);
  const m: MaintenanceJob = {
    warehouse_id: job.warehouse_id, namespace: t.namespace, table: t.name, kinds: hits.map((h) => h.kind),
    trigger: { type: 'rule', detail: hits.map((h) => `${h.kind}: ${h.detail} (seen by sink ${job.sink_id}'s roll)`).join('; ') }, requested_by: null,
  };
  try {
    await d.producers.add(QUEUES.maintenance, 'maintain', m, { ...MAINTENANCE_JOB_OPTIONS, jobId: maintenanceJobId(job.warehouse_id, t.namespace, t.name) });
    return true;
  } catch (err) {
    d.logger.warn('a maintenance run could not be queued after a roll; the sweep will find the table', { sink_id: job.sink_id, err: (err as Error).message });
    return false;
  }
}
