import { batchKey, mapLines, mappedRows, type MappedRows, type SchemaField } from '@floe/ingest';
import type { ObjectClient } from '@floe/storage';

// Batches read from the blob bucket and mapped onto a table's fields the
// JavaScript way (packages/ingest rows.ts): what a roll that finds its
// batches already in the table (roll.ts's reconcile) does to write their
// rejects again. A roll's own read is write-roll.ts's; both read a batch's
// object through readBatchObject, so a batch object that is gone is nothing
// to either.

export interface BatchRef {
  batchId: string;
  /** When the batch was received, in epoch microseconds: its rows' `__ingest_ts`. */
  receivedAtMicros: bigint;
}

/**
 * A batch's NDJSON object, or null when it is gone: a batch object that is
 * gone maps to nothing, in a roll's own read (write-roll.ts) as in a
 * reconcile's (mapBatches below).
 */
export function readBatchObject(objects: ObjectClient, bucket: string, sinkId: string, batchId: string): Promise<Buffer | null> {
  return objects.getBytes(bucket, batchKey(sinkId, batchId)).catch((err) => {
    if ((err as { kind?: string }).kind === 'not_found') return null;
    throw err;
  });
}

/** Batch objects read ahead of the one being mapped: the store's latency overlaps the mapping. */
const READ_AHEAD = 8;

/** The batches' NDJSON mapped onto the fields, in order; a batch object that is gone maps to nothing. */
export async function mapBatches(objects: ObjectClient, bucket: string, sinkId: string, fields: SchemaField[], batches: BatchRef[]): Promise<MappedRows> {
  const mapped = mappedRows(fields);
  const read = (i: number): Promise<string> | undefined => {
    if (i >= batches.length) return undefined;
    const text = readBatchObject(objects, bucket, sinkId, batches[i].batchId).then((bytes) => bytes?.toString('utf8') ?? '');
    // Awaited in turn below; this only keeps a failure ahead of its turn from counting as unhandled.
    text.catch(() => undefined);
    return text;
  };
  const ahead = Array.from({ length: READ_AHEAD }, (_, i) => read(i));
  for (let i = 0; i < batches.length; i++) {
    const text = await ahead.shift()!;
    ahead.push(read(i + READ_AHEAD));
    mapLines(mapped, batches[i].batchId, batches[i].receivedAtMicros, text);
    // The reads ahead only move while this thread waits on I/O: awaiting a read that is already done never does.
    // Without this turn of the event loop they stalled behind the mapping, and the roll waited on them.
    await new Promise((resolve) => setImmediate(resolve));
  }
  return mapped;
}
