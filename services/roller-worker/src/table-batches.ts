import type { TableMetadata } from '@floe/iceberg';

// Exactly once, through the table itself: each append's snapshot summary
// carries the sink id and the batch ids it appends, so whatever happened to
// the last roll — files written but not committed, committed but not
// recorded — the next roll finds the batches the table already holds and
// only records them.

export const SINK_ID_PROP = 'floe.sink-id';
export const SINK_BATCHES_PROP = 'floe.sink-batches';

/** The summary properties of a sink's append. */
export function sinkSummary(sinkId: string, batchIds: string[]): Record<string, string> {
  return { [SINK_ID_PROP]: sinkId, [SINK_BATCHES_PROP]: batchIds.join(','), 'engine-name': 'floe-roller' };
}

/** The sink's batches the table holds, each with the snapshot that appended it. */
export function batchesInTable(m: TableMetadata, sinkId: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of m.snapshots ?? []) {
    if (s.summary?.[SINK_ID_PROP] !== sinkId) continue;
    for (const id of String(s.summary[SINK_BATCHES_PROP] ?? '').split(',')) if (id) out.set(id, String(s['snapshot-id']));
  }
  return out;
}

/** Batches the table holds, grouped by the snapshot that appended them. */
export function groupBySnapshot<B extends { batchId: string }>(done: B[], inTable: Map<string, string>): Map<string, B[]> {
  const out = new Map<string, B[]>();
  for (const b of done) {
    const s = inTable.get(b.batchId)!;
    const group = out.get(s);
    if (group) group.push(b);
    else out.set(s, [b]);
  }
  return out;
}
