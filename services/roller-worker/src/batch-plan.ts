// Which waiting batches one roll takes. A plain function of the ledger's rows.

export interface PlannedBatch {
  /** The ledger's size of the batch (its request bytes). */
  bytes: number;
}

/**
 * At most this many bytes of batches in one roll (at least one batch). A
 * sink's roll_bytes is 32-64 MiB, so only a backlog (a roller that was down)
 * reaches it: without a bound its roll would try to hold all of it in
 * memory, fail, and fail again on every retry. The rest waits for the next
 * roll: due at once while what is left is at least roll_bytes, else by the
 * sink's own schedule.
 */
export const ROLL_MAX_BYTES = 128 * 1024 * 1024;

/** The oldest batches, in order, up to ROLL_MAX_BYTES. */
export function takeForRoll<B extends PlannedBatch>(batches: B[], maxBytes = ROLL_MAX_BYTES): B[] {
  let bytes = 0;
  let n = 0;
  while (n < batches.length && (n === 0 || bytes + batches[n].bytes <= maxBytes)) bytes += batches[n++].bytes;
  return batches.slice(0, n);
}
