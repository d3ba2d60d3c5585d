// The roller's worklist: the sinks with waiting batches, and whether each is
// due to roll and why. Served by the control plane's `GET /internal/sinks`
// and read by the roller's tick, from the same ledger rows (ledger-store.ts).

/** A live or deleted sink with waiting batches, as the ledger holds it. */
export interface WaitingSink {
  id: string;
  warehouseId: string;
  namespace: string;
  tableName: string;
  state: 'active' | 'deleted';
  rollSeconds: number;
  rollBytes: number;
  inactivitySeconds: number | null;
  tableChangesApplied: boolean;
  /** Waiting batches, their bytes, and when the oldest and newest were received. */
  batches: number;
  bytes: number;
  oldest: Date;
  newest: Date;
}

export type DueReason = 'deleted' | 'roll_bytes' | 'roll_seconds' | 'inactivity_seconds';

/** Why a sink is due to roll now, or null: a deleted sink's batches are discarded at once; a live one waits for its size, age or quiet. */
export function dueReason(s: WaitingSink, now: number): DueReason | null {
  const age = (now - s.oldest.getTime()) / 1000;
  const idle = (now - s.newest.getTime()) / 1000;
  return s.state === 'deleted' ? 'deleted'
    : s.bytes >= s.rollBytes ? 'roll_bytes'
      : age >= s.rollSeconds ? 'roll_seconds'
        : s.inactivitySeconds !== null && idle >= s.inactivitySeconds ? 'inactivity_seconds' : null;
}

/** One entry of `GET /internal/sinks`. */
export function worklistEntry(s: WaitingSink, now: number) {
  const reason = dueReason(s, now);
  return {
    sink_id: s.id,
    warehouse_id: s.warehouseId,
    table: `${s.namespace}.${s.tableName}`,
    namespace: s.namespace,
    table_name: s.tableName,
    state: s.state,
    roll: { seconds: s.rollSeconds, bytes: s.rollBytes, inactivity_seconds: s.inactivitySeconds },
    table_changes_applied: s.tableChangesApplied,
    pending: { batches: s.batches, bytes: s.bytes, oldest_received_at: s.oldest.toISOString(), newest_received_at: s.newest.toISOString() },
    due: reason !== null,
    due_reason: reason,
  };
}
export type WorklistEntry = ReturnType<typeof worklistEntry>;
