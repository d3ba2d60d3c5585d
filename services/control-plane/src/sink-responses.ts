import type { VisibleWarehouse } from '@floe/catalogs';
import { DEFAULT_DEVICE_OPTIONS, SINK_TABLE_CHANGES, deviceOptionsView, rejectsPrefix, sinkPrefix } from '@floe/ingest';
import type { SinkRecord } from './store/sinks';
import { iso } from './responses';

// A sink as the sink routes answer it (spec: Ingest sinks), from its record and its catalog.

export function sinkResponse(urls: { ingestUrl: string; baseUrl: string }, s: SinkRecord, w: VisibleWarehouse) {
  const behind = s.counts.oldestPending ? Math.round((Date.now() - new Date(s.counts.oldestPending).getTime()) / 1000) : 0;
  return {
    sink_id: s.id,
    name: s.name,
    table: `${s.namespace}.${s.tableName}`,
    warehouse_id: w.id,
    warehouse_name: w.name,
    bucket: w.blobBucket,
    state: s.state,
    roll: { seconds: s.rollSeconds, bytes: s.rollBytes, inactivity_seconds: s.inactivitySeconds, count: s.counts.rolls },
    prefix: sinkPrefix(s.id),
    ingest_url: urls.ingestUrl,
    send_url: `${urls.baseUrl}/v1/sinks/${s.id}`,
    send_key_id: s.sendKeyId,
    table_changes: { ...SINK_TABLE_CHANGES, applied: s.tableChangesApplied },
    lag: { batches_waiting: s.counts.pendingBatches, bytes_waiting: s.counts.pendingBytes, oldest_waiting_at: iso(s.counts.oldestPending), seconds_behind: behind },
    received: {
      batches: s.received.batches, device_batches: s.received.deviceBatches, rows: s.received.rows, bytes: s.received.storedBytes,
      ingest_bytes: s.received.ingestBytes, rejected_elements: s.received.rejected,
    },
    device: s.device.token
      ? { enabled: true, url: `${urls.ingestUrl}/d/<token shown once>`, token_created_at: iso(s.device.tokenAt), options: deviceOptionsView(s.device.options ?? DEFAULT_DEVICE_OPTIONS) }
      : { enabled: false },
    last_roll: s.lastRoll,
    rejects: { rows: s.rejectedRows, files: s.rejectFiles, prefix: rejectsPrefix(s.id), bucket: w.blobBucket, age_out_days: 7, recent: s.recentRejects },
    freshness: {
      last_roll_at: typeof s.lastRoll?.at === 'string' ? s.lastRoll.at : null,
      oldest_pending_age_seconds: behind,
      batches_committed_last_hour: s.lastHour.committed,
      send_to_commit_p99_seconds_last_hour: s.lastHour.p99Seconds === null ? null : Math.round(s.lastHour.p99Seconds * 10) / 10,
    },
    disabled_reason: s.disabledReason,
    iam_writes: [],
    created_at: iso(s.createdAt),
    deleted_at: iso(s.deletedAt),
  };
}
