import { createHash } from 'node:crypto';
import { rejectKey, type Reject } from '@floe/ingest';
import type { ObjectClient } from '@floe/storage';

// A roll's reject file: the lines that did not fit the table's schema, each
// with its reason, as NDJSON beside the sink's batches. It is named after the
// roll's snapshot, so the roll that records batches a stopped roller
// committed writes the same file again, not a copy. (Ageing them out:
// reject-ageing.ts.)

/** Writes the roll's reject file, named after its snapshot (or, with nothing appended, after its batches); its key, if any. */
export async function writeRejects(
  objects: ObjectClient, bucket: string, sinkId: string, snapshotId: string | null, batchIds: string[], rejects: Reject[],
): Promise<string | undefined> {
  if (!rejects.length) return undefined;
  const name = snapshotId ?? `none-${createHash('sha256').update(batchIds.join(',')).digest('hex').slice(0, 32)}`;
  const key = rejectKey(sinkId, name);
  await objects.put(bucket, key, `${rejects.map((r) => JSON.stringify(r)).join('\n')}\n`, { contentType: 'application/x-ndjson' });
  return key;
}
