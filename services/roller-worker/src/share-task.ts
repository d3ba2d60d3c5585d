import { writeParquetDataFile, type Schema, type WrittenParquet } from '@floe/iceberg';
import type { MappedRows, Reject, SchemaField } from '@floe/ingest';
import { ObjectClient, type StoreCredentials } from '@floe/storage';
import { mapBatches, type BatchRef } from './map-batches';

// A share of a roll: its batches read, mapped and written as one Parquet
// data file. Plain data in and out, so it runs on either thread.

export interface ShareTask {
  store: { endpoint: string; region: string };
  credentials: StoreCredentials;
  bucket: string;
  sinkId: string;
  fields: SchemaField[];
  /** The table's current schema, as in its metadata. */
  schema: Schema;
  batches: BatchRef[];
}

export interface ShareResult {
  count: number;
  rejects: Reject[];
  /** The data file, when the share has rows. */
  written?: WrittenParquet;
  /** Milliseconds reading and mapping, and writing the file. */
  mapMs: number;
  writeMs: number;
}

export async function runShare(task: ShareTask, objects = new ObjectClient(task.store, task.credentials)): Promise<ShareResult> {
  const t0 = performance.now();
  const mapped: MappedRows = await mapBatches(objects, task.bucket, task.sinkId, task.fields, task.batches);
  const t1 = performance.now();
  const written = mapped.count ? writeParquetDataFile({ schema: task.schema, columns: mapped.columns, rowCount: mapped.count }) : undefined;
  return { count: mapped.count, rejects: mapped.rejects, written, mapMs: t1 - t0, writeMs: performance.now() - t1 };
}
