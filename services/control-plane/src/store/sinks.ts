import type { SqlClient } from '@floe/http';

// Sink rows with their batch counters, as the sink routes report them.

export interface SinkRecord {
  id: string;
  name: string;
  warehouseId: string;
  namespace: string;
  tableName: string;
  state: 'active' | 'disabled' | 'deleted';
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
  counts: { pendingBatches: number; pendingBytes: number; oldestPending: Date | null; batches: number; rows: number; bytes: number; rejected: number; rolls: number };
}

const SELECT = `
  SELECT s.*, c.*
    FROM sinks s
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE b.state = 'pending')::int AS pending_batches,
             COALESCE(sum(b.bytes) FILTER (WHERE b.state = 'pending'), 0)::bigint AS pending_bytes,
             min(b.received_at) FILTER (WHERE b.state = 'pending') AS oldest_pending,
             count(*)::int AS batches, COALESCE(sum(b.accepted), 0)::bigint AS rows,
             COALESCE(sum(b.bytes), 0)::bigint AS bytes, COALESCE(sum(b.rejected), 0)::bigint AS rejected,
             count(DISTINCT b.snapshot_id)::int AS rolls
        FROM sink_batches b WHERE b.sink_id = s.id) c ON true`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRecord(r: any): SinkRecord {
  return {
    id: r.id, name: r.name, warehouseId: r.warehouse_id, namespace: r.namespace, tableName: r.table_name, state: r.state,
    disabledReason: r.disabled_reason, rollSeconds: r.roll_seconds, rollBytes: Number(r.roll_bytes), inactivitySeconds: r.inactivity_seconds,
    sendKeyId: r.send_key_id, tableChangesApplied: r.table_changes_applied, lastRoll: r.last_roll, rejectedRows: Number(r.rejected_rows),
    rejectFiles: r.reject_files, createdBy: r.created_by, createdAt: r.created_at, deletedAt: r.deleted_at,
    counts: {
      pendingBatches: r.pending_batches ?? 0, pendingBytes: Number(r.pending_bytes ?? 0), oldestPending: r.oldest_pending ?? null,
      batches: r.batches ?? 0, rows: Number(r.rows ?? 0), bytes: Number(r.bytes ?? 0), rejected: Number(r.rejected ?? 0), rolls: r.rolls ?? 0,
    },
  };
}

export async function sinksOf(db: SqlClient, warehouseIds: string[], includeDeleted: boolean, extra = '', values: unknown[] = []): Promise<SinkRecord[]> {
  const { rows } = await db.query(
    `${SELECT} WHERE s.warehouse_id = ANY($1::text[]) ${includeDeleted ? '' : `AND s.state <> 'deleted'`} ${extra} ORDER BY s.created_at, s.id`,
    [warehouseIds, ...values],
  );
  return rows.map(toRecord);
}
