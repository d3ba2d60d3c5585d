import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { currentSchema } from '@floe/iceberg';
import { RollReport, currentSchemaFields, rejectsPrefix, summarizeRejects, type RollReportInput } from '@floe/ingest';
import { pendingBatches, recordRoll, sinkStorage, type PendingBatch } from '@floe/ingest/ledger-store';
import { targetFileBytes, type SinkRollJob } from '@floe/queues';
import type { StoreCredentials } from '@floe/storage';
import { takeForRoll } from './batch-plan';
import { commitAppend } from './commit-append';
import { maybeCrash } from './crash';
import type { RollerDeps } from './deps';
import { mapBatches, type BatchRef } from './map-batches';
import { ageOutRejects } from './reject-ageing';
import { writeRejects } from './rejects';
import { withSinkLock } from './sink-lock';
import { applyFirstRollChanges, loadSinkTable } from './table';
import { batchesInTable, groupBySnapshot } from './table-batches';
import { writeRoll } from './write-roll';

// One roll of one sink, step by step: waiting batches → Parquet data files
// near the table's target size, written by the data-plane engine → one
// append committed through the catalog → the roll recorded in the sink
// ledger (batches committed). The steps live beside this file: the roll lock
// (sink-lock.ts), the table and its first-roll changes (table.ts), the read
// and write (write-roll.ts), exactly-once through the snapshot summary
// (table-batches.ts), the commit loop (commit-append.ts), reject files
// (rejects.ts), the fault-test hook (crash.ts); the ledger is
// packages/ingest's ledger-store.ts, which the roller records through directly.

export interface RollOutcome {
  status: 'rolled' | 'reconciled' | 'discarded' | 'disabled' | 'busy' | 'nothing';
  batches: number;
  rows: number;
  rejected: number;
  snapshotId?: string;
  /** Data files appended. */
  files?: number;
  /** Batches the engine left to the JavaScript reading (write-roll.ts). */
  batchesReadInJs?: number;
  /**
   * Milliseconds of each part of a roll that appended: where the time goes
   * (logged, and printed by bench/ingest): fetch the batches into the
   * scratch directory, read them into the roll's table (0 when the roll
   * took the one-statement shortcut), write_parquet the files (for the
   * shortcut, the statement that reads and writes).
   */
  phases?: Record<'load' | 'fetch' | 'read' | 'write_parquet' | 'upload_and_commit' | 'finish', number>;
}

const none = (status: RollOutcome['status']): RollOutcome => ({ status, batches: 0, rows: 0, rejected: 0 });

const batchRef = (b: PendingBatch): BatchRef => ({ batchId: b.batchId, receivedAtMicros: BigInt(b.receivedAt.getTime()) * 1000n });
const idsOf = (batches: PendingBatch[]): string[] => batches.map((b) => b.batchId);

export async function rollSink(d: RollerDeps, job: SinkRollJob): Promise<RollOutcome> {
  return withSinkLock(d.db, job.sink_id, none('busy'), () => rollLocked(d, job));
}

async function rollLocked(d: RollerDeps, job: SinkRollJob): Promise<RollOutcome> {
  const started = Date.now();
  const record = (r: RollReportInput) => recordRoll(d.prisma, job.sink_id, RollReport.parse(r));

  // what is waiting
  const pending = await pendingBatches(d.prisma, job.sink_id);
  if (!pending.length) return none('nothing');
  if (job.state === 'deleted') {
    await record({ discarded_batch_ids: idsOf(pending) });
    return { ...none('discarded'), batches: pending.length };
  }
  const store = await sinkStorage(d.prisma, job.sink_id);
  const credentials: StoreCredentials = { accessKeyId: store.accessKeyId, secretAccessKey: d.keyring.open(store.sealedSecretKey) };
  let loaded = await loadSinkTable(d.catalog, job);
  if (!loaded) {
    await record({ disabled_reason: 'table_missing' });
    return none('disabled');
  }

  // reconcile: batches the table already holds (a roll that stopped after its commit) are recorded, their rejects written again
  const objects = d.storage.objectsAs(credentials);
  const inTable = batchesInTable(loaded.metadata, job.sink_id);
  const done = pending.filter((b) => inTable.has(b.batchId));
  for (const [snapshotId, batches] of groupBySnapshot(done, inTable)) {
    const mapped = await mapBatches(objects, store.blobBucket, job.sink_id, currentSchemaFields(loaded.metadata), batches.map(batchRef));
    const rejectFile = await writeRejects(objects, store.blobBucket, job.sink_id, snapshotId, idsOf(batches), mapped.rejects);
    await record({
      batch_ids: idsOf(batches), snapshot_id: snapshotId, rows: mapped.count, rejected_rows: mapped.rejects.length, seconds: 0,
      ...(rejectFile ? { reject_file: rejectFile, reject_summary: summarizeRejects(mapped.rejects) } : {}),
    });
  }
  const todo = takeForRoll(pending.filter((b) => !inTable.has(b.batchId)));
  if (!todo.length) return { ...none('reconciled'), batches: done.length };

  // the table's first-roll changes, once
  const first = await applyFirstRollChanges(d.catalog, job, loaded);
  loaded = first.loaded;

  // read and write the data files on the engine, in the roll's own scratch directory
  const tLoaded = Date.now();
  // Housekeeping, alongside the roll's own work (it is mostly waiting on the store); a failure never fails the roll.
  const ageing = ageOutRejects(d.storage, credentials, store.blobBucket, rejectsPrefix(job.sink_id))
    .catch((err) => d.logger.warn('reject files could not be aged out', { sink_id: job.sink_id, err: (err as Error).message }));
  const engine = await d.engine.get();
  const dir = join(engine.scratchDir, `roll-${job.sink_id}-${randomUUID()}`);
  try {
    const written = await writeRoll({
      engine, objects, bucket: store.blobBucket, sinkId: job.sink_id, schema: currentSchema(loaded.metadata),
      fields: currentSchemaFields(loaded.metadata), targetFileSizeBytes: targetFileBytes(loaded.metadata), dir,
    }, todo.map(batchRef));
    const tWritten = Date.now();
    const { rejects } = written;

    // append
    let snapshotId: string | null = null;
    if (written.files.length) {
      snapshotId = await commitAppend({ catalog: d.catalog, storage: d.storage, crashAt: d.config.roller.crashAt }, job, loaded, written.files, idsOf(todo));
      maybeCrash(d.config.roller.crashAt, 'after_commit');
    }
    const tCommitted = Date.now();

    // rejects, then the ledger
    const rejectFile = await writeRejects(objects, store.blobBucket, job.sink_id, snapshotId, idsOf(todo), rejects);
    await ageing;
    maybeCrash(d.config.roller.crashAt, 'before_mark');
    await record({
      batch_ids: idsOf(todo),
      snapshot_id: snapshotId,
      rows: written.count,
      rejected_rows: rejects.length,
      seconds: (Date.now() - started) / 1000,
      ...(rejectFile ? { reject_file: rejectFile, reject_summary: summarizeRejects(rejects) } : {}),
      ...(first.applied ? { table_changes_applied: true } : {}),
    });
    const phases = {
      load: tLoaded - started, fetch: Math.round(written.fetchMs), read: Math.round(written.readMs), write_parquet: Math.round(written.writeMs),
      upload_and_commit: tCommitted - tWritten, finish: Date.now() - tCommitted,
    };
    const files = written.files.length;
    d.logger.info('rolled', {
      sink_id: job.sink_id, batches: todo.length, rows: written.count, rejected: rejects.length, snapshot_id: snapshotId, files,
      batches_read_in_js: written.readInJs, phases_ms: phases, ...(written.readerErrors.length ? { reader_errors: written.readerErrors } : {}),
    });
    return {
      status: 'rolled', batches: todo.length, rows: written.count, rejected: rejects.length, ...(snapshotId ? { snapshotId } : {}),
      files, batchesReadInJs: written.readInJs, phases,
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
