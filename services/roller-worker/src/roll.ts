import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { CatalogFailure } from '@floe/catalog-client';
import { buildAppend, parquetDataFile, type WrittenParquet } from '@floe/iceberg';
import type { ObjectClient, StoreCredentials } from '@floe/storage';
import { report, type WorkItem } from './control-plane';
import type { RollerDeps } from './deps';
import { ageOutRejects } from './reject-ageing';
import { INGEST_TS, SINK_TABLE_PROPERTIES, currentSchemaFields, rejectKey, rejectsPrefix, type Reject } from '@floe/ingest';
import { mapBatches, type BatchRef } from './map-batches';
import { runShare, type ShareTask } from './share-task';
import { splitShares, takeForRoll } from './batch-plan';

// One roll of one sink: waiting batches → one Parquet data file (two for a
// large roll, one per thread) → one append
// committed through the catalog → batches marked committed.
//
// Exactly once: the snapshot summary carries the sink id and the batch ids it
// appends (`floe.sink-id`, `floe.sink-batches`), so whatever happened last
// time — files written but not committed, committed but not reported — the
// next roll first finds batches already in the table and only reports them.
// A roll's reject file is named after its snapshot, so the roll that reports
// batches a stopped roller committed writes the same file again, not a copy.
// A Postgres advisory lock keeps one roller per sink.

type Json = Record<string, any>;

export const SINK_ID_PROP = 'floe.sink-id';
export const SINK_BATCHES_PROP = 'floe.sink-batches';
const MAX_COMMIT_ATTEMPTS = 20;

/** Fault-test hook (FLOE_ROLLER_CRASH_AT): the process ends at that stage of a roll. */
function maybeCrash(d: RollerDeps, stage: 'after_files' | 'after_commit' | 'before_mark'): void {
  if (d.config.roller.crashAt === stage) process.exit(86);
}

interface Batch {
  batch_id: string;
  received_at: Date;
  bytes: number;
}

interface SinkRow {
  blob_bucket: string;
  table_bucket: string;
  /** The warehouse's read/write identity, its secret key opened. */
  credentials: StoreCredentials;
}

export interface RollOutcome {
  status: 'rolled' | 'reconciled' | 'discarded' | 'disabled' | 'busy' | 'nothing';
  batches: number;
  rows: number;
  rejected: number;
  snapshotId?: string;
  /**
   * Milliseconds of each part of a roll that appended: where the time goes
   * (logged, and printed by bench/ingest). read_and_map and write_parquet
   * are the roll's own thread's share; share_thread the other share's, run
   * alongside (0 for a roll not split).
   */
  phases?: Record<'load' | 'read_and_map' | 'write_parquet' | 'share_thread' | 'upload_and_commit' | 'finish', number>;
}

export async function rollSink(d: RollerDeps, item: WorkItem): Promise<RollOutcome> {
  const lock = await d.db.connect();
  try {
    const { rows: got } = await lock.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS ok`, [`roll:${item.sink_id}`]);
    if (!got[0].ok) return { status: 'busy', batches: 0, rows: 0, rejected: 0 };
    try {
      return await rollLocked(d, item);
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`roll:${item.sink_id}`]);
    }
  } finally {
    lock.release();
  }
}

async function rollLocked(d: RollerDeps, item: WorkItem): Promise<RollOutcome> {
  const started = Date.now();
  const pending = await pendingBatches(d, item.sink_id);
  if (!pending.length) return { status: 'nothing', batches: 0, rows: 0, rejected: 0 };
  if (item.state === 'deleted') {
    await report(d.config, item.sink_id, { discarded_batch_ids: pending.map((b) => b.batch_id) });
    return { status: 'discarded', batches: pending.length, rows: 0, rejected: 0 };
  }
  const sink = await sinkStorage(d, item.sink_id);
  const tablePath = `/namespaces/${encodeURIComponent(item.namespace.split('.').join('\u001f'))}/tables/${encodeURIComponent(item.table_name)}`;

  let loaded = await loadTable(d, item, tablePath);
  if (!loaded) {
    await report(d.config, item.sink_id, { disabled_reason: 'table_missing' });
    return { status: 'disabled', batches: 0, rows: 0, rejected: 0 };
  }

  const sinkCredentials = sink.credentials;
  const objects = d.storage.objectsAs(sinkCredentials);
  // Batches the table already holds (a roll that stopped after its commit) are reported, their rejects written again.
  const inTable = batchesInTable(loaded.metadata, item.sink_id);
  const done = pending.filter((b) => inTable.has(b.batch_id));
  for (const [snapshotId, batches] of groupBySnapshot(done, inTable)) {
    const mapped = await mapBatches(objects, sink.blob_bucket, item.sink_id, currentSchemaFields(loaded.metadata), batches.map(batchRef));
    const rejectFile = await writeRejects(objects, sink, item.sink_id, snapshotId, batches, mapped.rejects);
    await report(d.config, item.sink_id, {
      batch_ids: batches.map((b) => b.batch_id), snapshot_id: snapshotId, rows: mapped.count, rejected_rows: mapped.rejects.length, seconds: 0,
      ...(rejectFile ? { reject_file: rejectFile } : {}),
    });
  }
  const todo = takeForRoll(pending.filter((b) => !inTable.has(b.batch_id)));
  if (!todo.length) return { status: 'reconciled', batches: done.length, rows: 0, rejected: 0 };

  let tableChanges = false;
  if (!schemaOf(loaded.metadata).fields.some((f: Json) => f.name === INGEST_TS)) {
    loaded = await addIngestColumn(d, item, tablePath, loaded);
    tableChanges = true;
  }

  const tLoaded = Date.now();
  // Housekeeping, alongside the roll's own work (it is mostly waiting on the store); a failure never fails the roll.
  const ageing = ageOutRejects(d.storage.s3As(sinkCredentials), sink.blob_bucket, rejectsPrefix(item.sink_id))
    .catch((err) => d.logger.warn('reject files could not be aged out', { sink_id: item.sink_id, err: (err as Error).message }));
  const fields = currentSchemaFields(loaded.metadata);
  const schema = schemaOf(loaded.metadata);
  const share = (batches: Batch[]): ShareTask => ({
    store: { endpoint: d.config.s3.endpoint, region: d.config.s3.region }, credentials: sinkCredentials, bucket: sink.blob_bucket,
    sinkId: item.sink_id, fields, schema, batches: batches.map(batchRef),
  });
  const [mine, theirs] = splitShares(todo);
  const [own, other] = await Promise.all([runShare(share(mine), objects), theirs.length ? d.shares.run(share(theirs)) : undefined]);
  const tWritten = Date.now();
  const rows = own.count + (other?.count ?? 0);
  const rejects = other ? [...own.rejects, ...other.rejects] : own.rejects;
  const files = [own.written, other?.written].filter((w): w is WrittenParquet => w !== undefined);
  let snapshotId: string | null = null;
  if (files.length) {
    snapshotId = await commitAppend(d, item, tablePath, loaded, files, todo.map((b) => b.batch_id));
    maybeCrash(d, 'after_commit');
  }
  const tCommitted = Date.now();
  const rejectFile = await writeRejects(objects, sink, item.sink_id, snapshotId, todo, rejects);
  await ageing;
  maybeCrash(d, 'before_mark');
  await report(d.config, item.sink_id, {
    batch_ids: todo.map((b) => b.batch_id),
    snapshot_id: snapshotId,
    rows,
    rejected_rows: rejects.length,
    seconds: (Date.now() - started) / 1000,
    ...(rejectFile ? { reject_file: rejectFile } : {}),
    ...(tableChanges || item.table_changes_applied ? { table_changes_applied: true } : {}),
  });
  const phases = {
    load: tLoaded - started, read_and_map: Math.round(own.mapMs), write_parquet: Math.round(own.writeMs),
    share_thread: Math.round(other ? other.mapMs + other.writeMs : 0), upload_and_commit: tCommitted - tWritten, finish: Date.now() - tCommitted,
  };
  d.logger.info('rolled', { sink_id: item.sink_id, batches: todo.length, rows, rejected: rejects.length, snapshot_id: snapshotId, phases_ms: phases });
  return { status: 'rolled', batches: todo.length, rows, rejected: rejects.length, ...(snapshotId ? { snapshotId } : {}), phases };
}

async function pendingBatches(d: RollerDeps, sinkId: string): Promise<Batch[]> {
  const { rows } = await d.db.query<Batch>(
    `SELECT batch_id, received_at, bytes FROM sink_batches WHERE sink_id = $1 AND state = 'pending' ORDER BY received_at, batch_id LIMIT 5000`, [sinkId]);
  return rows;
}

async function sinkStorage(d: RollerDeps, sinkId: string): Promise<SinkRow> {
  const { rows } = await d.db.query<{ blob_bucket: string; table_bucket: string; storage_access_key: string; storage_secret_key: string }>(
    `SELECT w.blob_bucket, w.table_bucket, w.storage_access_key, w.storage_secret_key FROM sinks s JOIN warehouses w ON w.id = s.warehouse_id WHERE s.id = $1`, [sinkId]);
  const r = rows[0];
  return { blob_bucket: r.blob_bucket, table_bucket: r.table_bucket, credentials: { accessKeyId: r.storage_access_key, secretAccessKey: d.keyring.open(r.storage_secret_key) } };
}

async function loadTable(d: RollerDeps, item: WorkItem, tablePath: string): Promise<Json | null> {
  try {
    return await d.catalog.request(item.warehouse_id, 'GET', tablePath, undefined, { 'X-Iceberg-Access-Delegation': 'vended-credentials' });
  } catch (err) {
    if (err instanceof CatalogFailure && (err.type === 'NoSuchTableException' || err.type === 'NoSuchNamespaceException')) return null;
    throw err;
  }
}

const schemaOf = (m: Json): Json => (m.schemas ?? []).find((s: Json) => s['schema-id'] === m['current-schema-id']);

function batchesInTable(m: Json, sinkId: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of m.snapshots ?? []) {
    if (s.summary?.[SINK_ID_PROP] !== sinkId) continue;
    for (const id of String(s.summary[SINK_BATCHES_PROP] ?? '').split(',')) if (id) out.set(id, String(s['snapshot-id']));
  }
  return out;
}

function groupBySnapshot(done: Batch[], inTable: Map<string, string>): Map<string, Batch[]> {
  const out = new Map<string, Batch[]>();
  for (const b of done) {
    const s = inTable.get(b.batch_id)!;
    const group = out.get(s);
    if (group) group.push(b);
    else out.set(s, [b]);
  }
  return out;
}

const batchRef = (b: Batch): BatchRef => ({ batch_id: b.batch_id, receivedAtMicros: BigInt(new Date(b.received_at).getTime()) * 1000n });

/** Writes the roll's reject file, named after its snapshot (or, with nothing appended, after its batches); its key, if any. */
async function writeRejects(objects: ObjectClient, sink: SinkRow, sinkId: string, snapshotId: string | null, batches: Batch[], rejects: Reject[]): Promise<string | undefined> {
  if (!rejects.length) return undefined;
  const name = snapshotId ?? `none-${createHash('sha256').update(batches.map((b) => b.batch_id).join(',')).digest('hex').slice(0, 32)}`;
  const key = rejectKey(sinkId, name);
  await objects.put(sink.blob_bucket, key, `${rejects.map((r) => JSON.stringify(r)).join('\n')}\n`, { contentType: 'application/x-ndjson' });
  return key;
}

/** The first roll adds the optional `__ingest_ts` column and the metadata-retention properties, in one commit. */
async function addIngestColumn(d: RollerDeps, item: WorkItem, tablePath: string, loaded: Json): Promise<Json> {
  const m = loaded.metadata;
  const current = schemaOf(m);
  const lastColumn = Number(m['last-column-id']);
  const nextSchemaId = Math.max(...(m.schemas as Json[]).map((s) => Number(s['schema-id']))) + 1;
  const schema = { ...current, 'schema-id': nextSchemaId, fields: [...current.fields, { id: lastColumn + 1, name: INGEST_TS, required: false, type: 'timestamptz' }] };
  try {
    await d.catalog.request(item.warehouse_id, 'POST', tablePath, {
      requirements: [
        { type: 'assert-current-schema-id', 'current-schema-id': m['current-schema-id'] },
        { type: 'assert-last-assigned-field-id', 'last-assigned-field-id': m['last-column-id'] },
      ],
      updates: [
        { action: 'add-schema', schema, 'last-column-id': lastColumn + 1 },
        { action: 'set-current-schema', 'schema-id': -1 },
        { action: 'set-properties', updates: SINK_TABLE_PROPERTIES },
      ],
    });
  } catch (err) {
    // A writer changed the schema meanwhile: the next roll looks again.
    if (!(err instanceof CatalogFailure && err.status === 409)) throw err;
  }
  return (await loadTable(d, item, tablePath))!;
}

/** Uploads the data file once, then builds and commits the append, rebuilding it on the new head after each lost race. */
async function commitAppend(d: RollerDeps, item: WorkItem, tablePath: string, loaded: Json, written: WrittenParquet[], batchIds: string[]): Promise<string> {
  let m = loaded.metadata as Json;
  const creds = vendedCredentials(loaded);
  const s3 = d.storage.s3As(creds);
  const objects = d.storage.objectsAs(creds);
  const bucketOf = (p: string) => /^s3a?:\/\/([^/]+)\//.exec(p)![1];
  const keyOf = (p: string) => p.replace(/^s3a?:\/\/[^/]+\//, '');
  const read = async (p: string) => {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucketOf(p), Key: keyOf(p) }));
    return new Uint8Array(await out.Body!.transformToByteArray());
  };
  const dataPaths = written.map(() => `${m.location}/data/sink-${item.sink_id}-${randomUUID()}.parquet`);
  // The data files upload while the first append is built; nothing is committed before all are done.
  const dataUpload = Promise.all(written.map((w, i) => objects.put(bucketOf(dataPaths[i]), keyOf(dataPaths[i]), w.bytes)));
  dataUpload.catch(() => undefined);
  const files = written.map((w, i) => parquetDataFile(dataPaths[i], w.stats));

  for (let attempt = 1; ; attempt++) {
    const headId = m['current-snapshot-id'];
    const parent = headId !== undefined && headId !== null && String(headId) !== '-1'
      ? (m.snapshots as Json[]).find((s) => String(s['snapshot-id']) === String(headId)) ?? null : null;
    const snapshotId = randomSnapshotId();
    const spec = (m['partition-specs'] as Json[]).find((s) => s['spec-id'] === m['default-spec-id']);
    const built = await buildAppend({
      formatVersion: m['format-version'], schema: schemaOf(m) as never, spec: spec as never, parent: parent as never,
      lastSequenceNumber: BigInt(m['last-sequence-number'] ?? 0), nextRowId: m['format-version'] >= 3 ? BigInt(m['next-row-id'] ?? 0) : undefined,
      files, snapshotId, read,
      manifestPath: `${m.location}/metadata/${randomUUID()}-m0.avro`,
      manifestListPath: `${m.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`,
      summary: { [SINK_ID_PROP]: item.sink_id, [SINK_BATCHES_PROP]: batchIds.join(','), 'engine-name': 'floe-roller' },
    });
    await Promise.all([dataUpload, ...built.uploads.map((u) => objects.put(bucketOf(u.path), keyOf(u.path), u.bytes))]);
    maybeCrash(d, 'after_files');
    try {
      await d.catalog.request(item.warehouse_id, 'POST', tablePath, {
        requirements: [{ type: 'assert-ref-snapshot-id', ref: 'main', 'snapshot-id': parent ? parent['snapshot-id'] : null }],
        updates: [
          { action: 'add-snapshot', snapshot: built.snapshot },
          { action: 'set-snapshot-ref', 'ref-name': 'main', type: 'branch', 'snapshot-id': snapshotId },
        ],
      });
      return snapshotId.toString();
    } catch (err) {
      // Another writer committed first: rebuild on its snapshot (the data file stays).
      if (!(err instanceof CatalogFailure && err.status === 409) || attempt >= MAX_COMMIT_ATTEMPTS) throw err;
      m = (await loadTable(d, item, tablePath))!.metadata;
      const already = batchesInTable(m, item.sink_id).get(batchIds[0]);
      if (already) return already;
    }
  }
}

function vendedCredentials(loaded: Json): StoreCredentials {
  const c = (loaded['storage-credentials']?.[0]?.config ?? loaded.config ?? {}) as Record<string, string>;
  return { accessKeyId: c['s3.access-key-id'], secretAccessKey: c['s3.secret-access-key'], sessionToken: c['s3.session-token'] };
}

/** Positive 63-bit snapshot ids, as Java writes them. */
function randomSnapshotId(): bigint {
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  bytes[0] &= 0x7f;
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`) || 1n;
}
