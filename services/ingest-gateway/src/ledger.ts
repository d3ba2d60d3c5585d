import { limitsOfRow } from '@floe/db/limits';
import { scopeStoredBytes } from '@floe/db/usage';
import type { Request } from 'express';
import { HttpError, quotaExceeded, quotaScopeOf, writeAudit } from '@floe/http';
import { batchKey } from '@floe/ingest';
import { recordReceivedBatch } from '@floe/ingest/received-batches';
import { StorageError } from '@floe/storage';
import type { IngestDeps } from './deps';

// The batch ledger both intake routes share: a batch's NDJSON object in the
// blob bucket, then its `sink_batches` row and the day's `ingest_usage`
// counters in one statement (packages/ingest received-batches.ts, the ledger's
// owner). The row is written after the object, so a batch row always has its
// object, and a lost race answers as the duplicate it is.
//
// Raw SQL over pg, every read here: the send and device routes are the
// ingest hot path (bench/ingest), run as named prepared statements.

/** What the intake routes need of a sink and its catalog. */
export interface IntakeSink {
  id: string;
  state: string;
  warehouse_id: string;
  /** The catalog's status: its sinks take nothing while it is `deleting` or `deleted` (sink-gate.ts). */
  warehouse_status: string;
  blob_bucket: string;
  storage_access_key: string;
  /** Sealed with the deployment's data key; opened only to write an accepted batch. */
  storage_secret_key: string;
  org_id: string | null;
  owner_id: string;
  /** The organisation's `org_limits` row, read with the sink for the quota check; null without one (or outside an organisation). */
  org_plan: string | null;
  org_limit_overrides: unknown;
}

/** The sink a send key (by key id), a device token (by hash) or an internal caller (by id) names, with what intake needs of its catalog. */
export async function intakeSinkBy<T extends IntakeSink>(d: IngestDeps, by: 'id' | 'send_key_id' | 'device_token_hash', value: string): Promise<T | null> {
  const { rows } = await d.db.query<T>({
    name: `ingest_sink_by_${by}`,
    text: `SELECT s.id, s.state, s.send_key_hash, s.device_options, s.warehouse_id, w.status AS warehouse_status, w.blob_bucket, w.storage_access_key, w.storage_secret_key, w.org_id, p.owner_id,
                  l.plan AS org_plan, l.overrides AS org_limit_overrides
             FROM sinks s JOIN warehouses w ON w.id = s.warehouse_id JOIN projects p ON p.id = w.project_id
                  LEFT JOIN org_limits l ON l.org_id = w.org_id
            WHERE s.${by} = $1`,
    values: [value],
  });
  return rows[0] ?? null;
}

export interface BatchRow {
  state: string;
  accepted: number;
  rejected: number;
  bytes: number;
  received_at: Date;
}

export async function existingBatch(d: IngestDeps, sinkId: string, batchId: string): Promise<BatchRow | null> {
  const { rows } = await d.db.query<BatchRow>({
    name: 'ingest_batch',
    text: `SELECT state, accepted, rejected, bytes, received_at FROM sink_batches WHERE sink_id = $1 AND batch_id = $2`,
    values: [sinkId, batchId],
  });
  return rows[0] ?? null;
}

/** The 200 answer to a batch already received: its counts and state, nothing written. */
export function duplicateView(batchId: string, b: BatchRow) {
  return {
    duplicate: true, batch_id: batchId, accepted: b.accepted, rejected: b.rejected, bytes: b.bytes,
    received_at: new Date(b.received_at).toISOString(), state: b.state === 'committed' ? 'committed' : 'pending',
  };
}

/**
 * Who hands a batch in, for the audit log: a sink's send key or device token
 * (no principal), or a principal acting through the internal batches route
 * (the MCP tool server's token record).
 */
export type IntakeActor = { kind: 'send_key' } | { kind: 'device_token' } | { kind: 'mcp'; id: string };

/** The scope's storage limit, from the `org_limits` row the sink lookup brought (the free plan without one). */
const storageLimitOf = (sink: IntakeSink): number =>
  limitsOfRow(sink.org_plan === null ? null : { plan: sink.org_plan, overrides: sink.org_limit_overrides }).limits.storage_bytes;

/**
 * 409 quota_exceeded once the scope's stored bytes reach the storage limit:
 * nothing is accepted, and the refusal is one `quota.reject` audit event (as
 * the control plane's refusals are), with the sender as its actor. One query
 * per batch: the limit came with the sink (intakeSinkBy), so only the stored
 * bytes are read here, as late as can be.
 */
export async function requireStorageHeadroom(d: IngestDeps, req: Request, sink: IntakeSink, actor: IntakeActor): Promise<void> {
  const stored = await scopeStoredBytes(d.db, sink.org_id, sink.owner_id);
  const limit = storageLimitOf(sink);
  if (stored < limit) return;
  await writeAudit(d.db, req, {
    action: 'quota.reject', actorKind: actor.kind, actorId: 'id' in actor ? actor.id : null, orgId: sink.org_id, targetType: 'warehouse', targetId: sink.warehouse_id,
    data: { operation: actor.kind === 'device_token' ? 'sink.device_post' : 'sink.send', sink_id: sink.id, current: stored, limit_value: limit },
  });
  throw quotaExceeded('the storage limit is reached; nothing was accepted', { current: stored, limit_value: limit, scope: quotaScopeOf(sink.org_id) });
}

export interface NewBatch {
  batchId: string;
  /** The accepted elements as NDJSON, one per line; empty when none was accepted. */
  ndjson: Buffer;
  accepted: number;
  rejected: number;
  /** Request bytes of the post, metered as `ingest_bytes`. */
  intakeBytes: number;
  via: 'send' | 'device';
}

export type Recorded = { duplicate: false; bytes: number; received_at: Date; state: 'pending' | 'committed' } | { duplicate: true; row: BatchRow };

export async function recordBatch(d: IngestDeps, sink: IntakeSink, b: NewBatch): Promise<Recorded> {
  const { ndjson } = b;
  if (b.accepted) {
    try {
      // Unsigned payload: hashing up to 16 MiB twice (here to sign, in the store to check) was a tenth of the route's CPU.
      await d.storage.objectsAs({ accessKeyId: sink.storage_access_key, secretAccessKey: d.keyring.open(sink.storage_secret_key) })
        .put(sink.blob_bucket, batchKey(sink.id, b.batchId), ndjson, { contentType: 'application/x-ndjson', unsignedPayload: true });
    } catch (err) {
      if (err instanceof StorageError) {
        throw new HttpError(502, 'storage_error', 'the batch could not be stored; retry the same post (it is safe)', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
      }
      throw err;
    }
  }
  const bytes = ndjson.length;
  // A batch with no object has nothing to append: it is done as received.
  const state = b.accepted ? 'pending' : 'committed';
  const recorded = await recordReceivedBatch(d.db, {
    sinkId: sink.id, warehouseId: sink.warehouse_id, batchId: b.batchId, bytes, accepted: b.accepted, rejected: b.rejected, state, via: b.via, intakeBytes: b.intakeBytes,
  });
  if (!recorded) return { duplicate: true, row: (await existingBatch(d, sink.id, b.batchId))! };
  return { duplicate: false, bytes, received_at: recorded.receivedAt, state };
}
