import { createHash, randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { CatalogFailure } from '@floe/catalog-client';
import { buildAppend, parquetDataFile, writeParquetDataFile, type WrittenParquet } from '@floe/iceberg';
import type { ObjectClient, StoreCredentials } from '@floe/storage';
import { report, type WorkItem } from './control-plane';
import type { RollerDeps } from './deps';
import { ageOutRejects } from './reject-ageing';
import { INGEST_TS, currentSchemaFields, mapLines, mappedRows, type MappedRows, type SchemaField } from '@floe/ingest';

// One roll of one sink: waiting batches → one Parquet data file → one append
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
const TABLE_PROPERTIES = { 'write.metadata.delete-after-commit.enabled': 'true', 'write.metadata.previous-versions-max': '20' };
const MAX_COMMIT_ATTEMPTS = 20;

/** Fault-test hook (FLOE_ROLLER_CRASH_AT): the process ends at that stage of a roll. */
function maybeCrash(d: RollerDeps, stage: 'after_files' | 'after_commit' | 'before_mark'): void {
  if (d.config.roller.crashAt === stage) process.exit(86);
}

interface Batch {
  batch_id: string;
  received_at: Date;
}

interface SinkRow {
  blob_bucket: string;
  table_bucket: string;
  storage_access_key: string;
  storage_secret_key: string;
}

export interface RollOutcome {
  status: 'rolled' | 'reconciled' | 'discarded' | 'disabled' | 'busy' | 'nothing';
  batches: number;
  rows: number;
  rejected: number;
  snapshotId?: string;
  /** Milliseconds of each part of a roll that appended: where the time goes (logged, and printed by bench/ingest). */
  phases?: { load: number; read_and_map: number; write_parquet: number; upload_and_commit: number; finish: number };
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

  const sinkCredentials = { accessKeyId: sink.storage_access_key, secretAccessKey: sink.storage_secret_key };
  const objects = d.storage.objectsAs(sinkCredentials);
  // Batches the table already holds (a roll that stopped after its commit) are reported, their rejects written again.
  const inTable = batchesInTable(loaded.metadata, item.sink_id);
  const done = pending.filter((b) => inTable.has(b.batch_id));
  for (const [snapshotId, batches] of groupBySnapshot(done, inTable)) {
    const mapped = await mapBatches(objects, sink, item.sink_id, currentSchemaFields(loaded.metadata), batches);
    const rejectFile = await writeRejects(objects, sink, item.sink_id, snapshotId, batches, mapped);
    await report(d.config, item.sink_id, {
      batch_ids: batches.map((b) => b.batch_id), snapshot_id: snapshotId, rows: mapped.count, rejected_rows: mapped.rejects.length, seconds: 0,
      ...(rejectFile ? { reject_file: rejectFile } : {}),
    });
  }
  const todo = pending.filter((b) => !inTable.has(b.batch_id));
  if (!todo.length) return { status: 'reconciled', batches: done.length, rows: 0, rejected: 0 };

  let tableChanges = false;
  if (!schemaOf(loaded.metadata).fields.some((f: Json) => f.name === INGEST_TS)) {
    loaded = await addIngestColumn(d, item, tablePath, loaded);
    tableChanges = true;
  }

  const tLoaded = Date.now();
  // Housekeeping, alongside the roll's own work (it is mostly waiting on the store); a failure never fails the roll.
  const ageing = ageOutRejects(d.storage.s3As(sinkCredentials), sink.blob_bucket, `_sink/${item.sink_id}/_rejects/`)
    .catch((err) => d.logger.warn('reject files could not be aged out', { sink_id: item.sink_id, err: (err as Error).message }));
  const mapped = await mapBatches(objects, sink, item.sink_id, currentSchemaFields(loaded.metadata), todo);
  const tMapped = Date.now();
  let snapshotId: string | null = null;
  let tWritten = tMapped;
  if (mapped.count) {
    const written = writeParquetDataFile({ schema: schemaOf(loaded.metadata) as never, columns: mapped.columns, rowCount: mapped.count });
    tWritten = Date.now();
    snapshotId = await commitAppend(d, item, tablePath, loaded, written, todo.map((b) => b.batch_id));
    maybeCrash(d, 'after_commit');
  }
  const tCommitted = Date.now();
  const rejectFile = await writeRejects(objects, sink, item.sink_id, snapshotId, todo, mapped);
  await ageing;
  maybeCrash(d, 'before_mark');
  await report(d.config, item.sink_id, {
    batch_ids: todo.map((b) => b.batch_id),
    snapshot_id: snapshotId,
    rows: mapped.count,
    rejected_rows: mapped.rejects.length,
    seconds: (Date.now() - started) / 1000,
    ...(rejectFile ? { reject_file: rejectFile } : {}),
    ...(tableChanges || item.table_changes_applied ? { table_changes_applied: true } : {}),
  });
  const phases = { load: tLoaded - started, read_and_map: tMapped - tLoaded, write_parquet: tWritten - tMapped, upload_and_commit: tCommitted - tWritten, finish: Date.now() - tCommitted };
  d.logger.info('rolled', { sink_id: item.sink_id, batches: todo.length, rows: mapped.count, rejected: mapped.rejects.length, snapshot_id: snapshotId, phases_ms: phases });
  return { status: 'rolled', batches: todo.length, rows: mapped.count, rejected: mapped.rejects.length, ...(snapshotId ? { snapshotId } : {}), phases };
}

async function pendingBatches(d: RollerDeps, sinkId: string): Promise<Batch[]> {
  const { rows } = await d.db.query<Batch>(
    `SELECT batch_id, received_at FROM sink_batches WHERE sink_id = $1 AND state = 'pending' ORDER BY received_at, batch_id LIMIT 5000`, [sinkId]);
  return rows;
}

async function sinkStorage(d: RollerDeps, sinkId: string): Promise<SinkRow> {
  const { rows } = await d.db.query<SinkRow>(
    `SELECT w.blob_bucket, w.table_bucket, w.storage_access_key, w.storage_secret_key FROM sinks s JOIN warehouses w ON w.id = s.warehouse_id WHERE s.id = $1`, [sinkId]);
  return rows[0];
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

/** Batch objects read ahead of the one being mapped: the store's latency overlaps the mapping. */
const READ_AHEAD = 8;

/** The batches' NDJSON mapped onto the table's fields, in order; a batch object that is gone maps to nothing. */
async function mapBatches(objects: ObjectClient, sink: SinkRow, sinkId: string, fields: SchemaField[], batches: Batch[]): Promise<MappedRows> {
  const mapped = mappedRows(fields);
  const read = (i: number): Promise<string> | undefined => {
    if (i >= batches.length) return undefined;
    const text = objects.getText(sink.blob_bucket, `_sink/${sinkId}/${batches[i].batch_id}.ndjson`).catch((err) => {
      if ((err as { kind?: string }).kind === 'not_found') return '';
      throw err;
    });
    // Awaited in turn below; this only keeps a failure ahead of its turn from counting as unhandled.
    text.catch(() => undefined);
    return text;
  };
  const ahead = Array.from({ length: READ_AHEAD }, (_, i) => read(i));
  for (let i = 0; i < batches.length; i++) {
    const text = await ahead.shift()!;
    ahead.push(read(i + READ_AHEAD));
    mapLines(mapped, batches[i].batch_id, BigInt(new Date(batches[i].received_at).getTime()) * 1000n, text);
    // The reads ahead only move while this thread waits on I/O: awaiting a read that is already done never does.
    // Without this turn of the event loop they stalled behind the mapping, and the roll waited on them.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return mapped;
}

/** Writes the roll's reject file, named after its snapshot (or, with nothing appended, after its batches); its key, if any. */
async function writeRejects(objects: ObjectClient, sink: SinkRow, sinkId: string, snapshotId: string | null, batches: Batch[], mapped: MappedRows): Promise<string | undefined> {
  if (!mapped.rejects.length) return undefined;
  const name = snapshotId ?? `none-${createHash('sha256').update(batches.map((b) => b.batch_id).join(',')).digest('hex').slice(0, 32)}`;
  const key = `_sink/${sinkId}/_rejects/${name}.ndjson`;
  await objects.put(sink.blob_bucket, key, `${mapped.rejects.map((r) => JSON.stringify(r)).join('\n')}\n`, { contentType: 'application/x-ndjson' });
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
        { action: 'set-properties', updates: TABLE_PROPERTIES },
      ],
    });
  } catch (err) {
    // A writer changed the schema meanwhile: the next roll looks again.
    if (!(err instanceof CatalogFailure && err.status === 409)) throw err;
  }
  return (await loadTable(d, item, tablePath))!;
}

/** Uploads the data file once, then builds and commits the append, rebuilding it on the new head after each lost race. */
async function commitAppend(d: RollerDeps, item: WorkItem, tablePath: string, loaded: Json, written: WrittenParquet, batchIds: string[]): Promise<string> {
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
  const dataPath = `${m.location}/data/sink-${item.sink_id}-${randomUUID()}.parquet`;
  // The data file uploads while the first append is built; nothing is committed before both are done.
  const dataUpload = objects.put(bucketOf(dataPath), keyOf(dataPath), written.bytes);
  dataUpload.catch(() => undefined);
  const file = parquetDataFile(dataPath, written.stats);

  for (let attempt = 1; ; attempt++) {
    const headId = m['current-snapshot-id'];
    const parent = headId !== undefined && headId !== null && String(headId) !== '-1'
      ? (m.snapshots as Json[]).find((s) => String(s['snapshot-id']) === String(headId)) ?? null : null;
    const snapshotId = randomSnapshotId();
    const spec = (m['partition-specs'] as Json[]).find((s) => s['spec-id'] === m['default-spec-id']);
    const built = await buildAppend({
      formatVersion: m['format-version'], schema: schemaOf(m) as never, spec: spec as never, parent: parent as never,
      lastSequenceNumber: BigInt(m['last-sequence-number'] ?? 0), nextRowId: m['format-version'] >= 3 ? BigInt(m['next-row-id'] ?? 0) : undefined,
      files: [file], snapshotId, read,
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
