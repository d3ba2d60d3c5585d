import type { SqlClient } from '@floe/http';
import type { DeviceOptions } from '@floe/ingest';

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
  /** Device route: whether a token is set, since when, and the body-level options. */
  device: { token: boolean; tokenAt: Date | null; options: DeviceOptions | null };
  /** Intake since the sink was made, kept after the batch ledger is pruned. */
  received: { batches: number; deviceBatches: number; rows: number; rejected: number; ingestBytes: number; storedBytes: number };
  counts: { pendingBatches: number; pendingBytes: number; oldestPending: Date | null; rolls: number };
}

const SELECT = `
  SELECT s.*, c.*, u.*
    FROM sinks s
    LEFT JOIN LATERAL (
      SELECT count(*) FILTER (WHERE b.state = 'pending')::int AS pending_batches,
             COALESCE(sum(b.bytes) FILTER (WHERE b.state = 'pending'), 0)::bigint AS pending_bytes,
             min(b.received_at) FILTER (WHERE b.state = 'pending') AS oldest_pending,
             count(DISTINCT b.snapshot_id)::int AS rolls
        FROM sink_batches b WHERE b.sink_id = s.id) c ON true
    LEFT JOIN LATERAL (
      SELECT COALESCE(sum(i.batches), 0)::bigint AS in_batches, COALESCE(sum(i.device_batches), 0)::bigint AS in_device_batches,
             COALESCE(sum(i.rows), 0)::bigint AS in_rows, COALESCE(sum(i.rejected), 0)::bigint AS in_rejected,
             COALESCE(sum(i.ingest_bytes), 0)::bigint AS in_ingest_bytes, COALESCE(sum(i.stored_bytes), 0)::bigint AS in_stored_bytes
        FROM ingest_usage i WHERE i.sink_id = s.id) u ON true`;

// eslint-disable-next-line @typescript-eslint/no-explicit-any
function toRecord(r: any): SinkRecord {
  return {
    id: r.id, name: r.name, warehouseId: r.warehouse_id, namespace: r.namespace, tableName: r.table_name, state: r.state,
    disabledReason: r.disabled_reason, rollSeconds: r.roll_seconds, rollBytes: Number(r.roll_bytes), inactivitySeconds: r.inactivity_seconds,
    sendKeyId: r.send_key_id, tableChangesApplied: r.table_changes_applied, lastRoll: r.last_roll, rejectedRows: Number(r.rejected_rows),
    rejectFiles: r.reject_files, createdBy: r.created_by, createdAt: r.created_at, deletedAt: r.deleted_at,
    device: { token: r.device_token_hash !== null, tokenAt: r.device_token_at, options: r.device_options },
    received: {
      batches: Number(r.in_batches ?? 0), deviceBatches: Number(r.in_device_batches ?? 0), rows: Number(r.in_rows ?? 0),
      rejected: Number(r.in_rejected ?? 0), ingestBytes: Number(r.in_ingest_bytes ?? 0), storedBytes: Number(r.in_stored_bytes ?? 0),
    },
    counts: {
      pendingBatches: r.pending_batches ?? 0, pendingBytes: Number(r.pending_bytes ?? 0), oldestPending: r.oldest_pending ?? null,
      rolls: r.rolls ?? 0,
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
