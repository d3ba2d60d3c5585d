import type { SqlClient } from '@floe/http';

// A received batch in the sink ledger: its `sink_batches` row and the day's
// `ingest_usage` counters, written by the intake routes (the ingest gateway's
// send and device routes) after the batch's object is stored. Raw SQL over
// pg: this is the ingest hot path (bench/ingest), run as a named prepared
// statement, and the row and its day's counters are one statement (a CTE with
// ON CONFLICT on both tables), which the Prisma client cannot say. The rest
// of the ledger's writes: ledger-store.ts and sink-store.ts.

export interface ReceivedBatch {
  sinkId: string;
  warehouseId: string;
  batchId: string;
  /** Bytes stored (the NDJSON object), metered as `stored_bytes`. */
  bytes: number;
  accepted: number;
  rejected: number;
  /** `pending` when there is an object to append; `committed` when nothing was accepted. */
  state: 'pending' | 'committed';
  via: 'send' | 'device';
  /** Request bytes of the post, metered as `ingest_bytes`. */
  intakeBytes: number;
}

/** Records the batch and counts it in its day's usage; null when the batch id was recorded already (a duplicate, nothing counted). */
export async function recordReceivedBatch(db: SqlClient, b: ReceivedBatch): Promise<{ receivedAt: Date } | null> {
  const { rows } = await db.query<{ received_at: Date }>({
    name: 'ingest_record_batch',
    text: `WITH b AS (
             INSERT INTO sink_batches (sink_id, batch_id, bytes, accepted, rejected, state, via) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT DO NOTHING RETURNING received_at
           ), u AS (
             INSERT INTO ingest_usage AS u (sink_id, day, warehouse_id, batches, device_batches, rows, rejected, ingest_bytes, stored_bytes)
             SELECT $1, (b.received_at AT TIME ZONE 'UTC')::date, $8::text, 1, $9::int, $4::int, $5::int, $10::bigint, $3::int FROM b
             ON CONFLICT (sink_id, day) DO UPDATE SET
               batches = u.batches + 1, device_batches = u.device_batches + EXCLUDED.device_batches, rows = u.rows + EXCLUDED.rows,
               rejected = u.rejected + EXCLUDED.rejected, ingest_bytes = u.ingest_bytes + EXCLUDED.ingest_bytes,
               stored_bytes = u.stored_bytes + EXCLUDED.stored_bytes
           )
           SELECT received_at FROM b`,
    values: [b.sinkId, b.batchId, b.bytes, b.accepted, b.rejected, b.state, b.via, b.warehouseId, b.via === 'device' ? 1 : 0, b.intakeBytes],
  });
  return rows[0] ? { receivedAt: rows[0].received_at } : null;
}
