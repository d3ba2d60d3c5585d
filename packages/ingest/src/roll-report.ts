import { z } from 'zod';

// What one roll of a sink did, as the ledger records it: the batches it
// committed (with the snapshot that holds them) or discarded (sink deleted),
// its rows and misfits, its reject file, and whether it disabled the sink.
// The roller records it through the ledger store; the control plane's
// `POST /internal/sinks/{sink_id}/roll` takes the same body (spec: internal routes).

export const RollReport = z.object({
  batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  snapshot_id: z.string().regex(/^-?\d+$/).nullable().default(null),
  rows: z.number().int().min(0).default(0),
  rejected_rows: z.number().int().min(0).default(0),
  seconds: z.number().min(0).default(0),
  disabled_reason: z.enum(['table_missing']).optional(),
  discarded_batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  reject_file: z.string().min(1).max(1024).optional(),
  /** The roll made the first-roll table changes (sink-table.ts). */
  table_changes_applied: z.boolean().optional(),
});
/** A report as recorded (defaults filled). */
export type RollReport = z.output<typeof RollReport>;
/** A report as written by its sender (every field optional). */
export type RollReportInput = z.input<typeof RollReport>;

/** What recording a report changed. */
export interface RollRecorded {
  committed: number;
  discarded: number;
  pruned: number;
  /** The sink's state afterwards. */
  state: string;
}
