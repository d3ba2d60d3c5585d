import { randomUUID } from 'node:crypto';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { CatalogFailure, vendedCredentials, type CatalogClient, type LoadTableResult } from '@floe/catalog-client';
import {
  MAIN_BRANCH, buildAppend, currentSchema, currentSnapshot, defaultSpec, lastSequenceNumber, newSnapshotId, parquetDataFile,
  type TableMetadata,
} from '@floe/iceberg';
import type { SinkRollJob } from '@floe/queues';
import { parseS3Location, putFile, type StorageProvider } from '@floe/storage';
import { maybeCrash, type CrashStage } from './crash';
import { loadSinkTable, tableOf } from './table';
import { batchesInTable, sinkSummary } from './table-batches';
import type { RollFile } from './write-roll';

// A roll's one append: its data files uploaded once under the table's
// location (with the storage session the catalog vended), then the manifest
// and manifest list built on the branch head and committed through the
// catalog with `assert-ref-snapshot-id`. Another writer that commits first
// makes the commit refused (409): the append is rebuilt on the new head (the
// data files stay), unless the new head already holds this roll's batches.

const MAX_COMMIT_ATTEMPTS = 20;

export interface AppendDeps {
  catalog: CatalogClient;
  storage: Pick<StorageProvider, 's3As' | 'objectsAs'>;
  crashAt: CrashStage | undefined;
}

/** Uploads the data files once, then builds and commits the append, rebuilding it on the new head after each lost race; the snapshot id that holds the batches. */
export async function commitAppend(d: AppendDeps, job: SinkRollJob, loaded: LoadTableResult, written: RollFile[], batchIds: string[]): Promise<string> {
  let m: TableMetadata = loaded.metadata;
  const creds = vendedCredentials(loaded);
  const s3 = d.storage.s3As(creds);
  const objects = d.storage.objectsAs(creds);
  const put = (path: string, bytes: Uint8Array) => {
    const { bucket, key } = parseS3Location(path, 'put data file');
    return objects.put(bucket, key, bytes);
  };
  const read = async (path: string) => {
    const { bucket, key } = parseS3Location(path, 'put data file');
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return new Uint8Array(await out.Body!.transformToByteArray());
  };
  // A data file streams from the roll's directory: a 64 MiB roll is never held in memory twice.
  const upload = (localPath: string, path: string) => {
    const { bucket, key } = parseS3Location(path, 'put data file');
    return putFile(s3, bucket, key, localPath);
  };
  const dataPaths = written.map(() => `${m.location}/data/sink-${job.sink_id}-${randomUUID()}.parquet`);
  // The data files upload while the first append is built; nothing is committed before all are done.
  const dataUpload = Promise.all(written.map((w, i) => upload(w.localPath, dataPaths[i])));
  dataUpload.catch(() => undefined);
  const files = written.map((w, i) => parquetDataFile(dataPaths[i], w.stats));

  for (let attempt = 1; ; attempt++) {
    const parent = currentSnapshot(m) ?? null;
    const snapshotId = newSnapshotId();
    const built = await buildAppend({
      formatVersion: m['format-version'], schema: currentSchema(m), spec: defaultSpec(m), parent,
      lastSequenceNumber: lastSequenceNumber(m), nextRowId: m['format-version'] >= 3 ? m['next-row-id'] ?? 0n : undefined,
      files, snapshotId, read,
      manifestPath: `${m.location}/metadata/${randomUUID()}-m0.avro`,
      manifestListPath: `${m.location}/metadata/snap-${snapshotId}-${randomUUID()}.avro`,
      summary: sinkSummary(job.sink_id, batchIds),
    });
    await Promise.all([dataUpload, ...built.uploads.map((u) => put(u.path, u.bytes))]);
    maybeCrash(d.crashAt, 'after_files');
    try {
      await d.catalog.commitTable(job.warehouse_id, tableOf(job), {
        requirements: [{ type: 'assert-ref-snapshot-id', ref: MAIN_BRANCH, 'snapshot-id': parent ? parent['snapshot-id'] : null }],
        updates: [
          { action: 'add-snapshot', snapshot: built.snapshot },
          { action: 'set-snapshot-ref', 'ref-name': MAIN_BRANCH, type: 'branch', 'snapshot-id': snapshotId },
        ],
      });
      return snapshotId.toString();
    } catch (err) {
      // Another writer committed first: rebuild on its snapshot (the data files stay).
      if (!(err instanceof CatalogFailure && err.status === 409) || attempt >= MAX_COMMIT_ATTEMPTS) throw err;
      m = (await loadSinkTable(d.catalog, job))!.metadata;
      const already = batchesInTable(m, job.sink_id).get(batchIds[0]);
      if (already) return already;
    }
  }
}
