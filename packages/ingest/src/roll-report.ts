import { z } from 'zod';

// What one roll of a sink did, as the ledger records it: the batches it
// committed (with the snapshot that holds them) or discarded (sink deleted),
// its rows and misfits, its reject file, and whether it disabled the sink.
// The roller records it through the ledger store; the control plane's
// `POST /internal/sinks/{sink_id}/roll` takes the same body (spec: internal routes).

/** Example lines kept per roll, and how much of each line. */
export const REJECT_EXAMPLES = 3;
export const REJECT_EXAMPLE_CHARS = 500;
/** Distinct reasons counted per roll; the rest are counted under `other`. */
export const REJECT_REASONS = 20;
/** Rolls with rejects a sink keeps for GET /v1/sinks/{id}, newest first (kept in the database: ledger-store.ts recordRoll). */
export const RECENT_REJECT_ROLLS = 5;
/** The `disabled_reason` a roll gives a sink whose table (or namespace) is gone; PATCH /v1/sinks/{id} clears it once the table is back. */
export const TABLE_MISSING = 'table_missing';

/** What a roll turned away, in brief: the count per reason and the first few lines (cut to REJECT_EXAMPLE_CHARS) with their batch ids. */
export const RejectSummary = z.object({
  reasons: z.record(z.string().max(1000), z.number().int().min(1)),
  examples: z.array(z.object({
    batch_id: z.string().min(1).max(128),
    line: z.number().int().min(1),
    reason: z.string().max(1000),
    raw: z.string().max(REJECT_EXAMPLE_CHARS + 1),
  })).max(REJECT_EXAMPLES),
});
export type RejectSummary = z.output<typeof RejectSummary>;

export const RollReport = z.object({
  batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  snapshot_id: z.string().regex(/^-?\d+$/).nullable().default(null),
  rows: z.number().int().min(0).default(0),
  rejected_rows: z.number().int().min(0).default(0),
  seconds: z.number().min(0).default(0),
  disabled_reason: z.enum([TABLE_MISSING]).optional(),
  discarded_batch_ids: z.array(z.string().min(1).max(128)).max(100_000).default([]),
  reject_file: z.string().min(1).max(1024).optional(),
  reject_summary: RejectSummary.optional(),
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

/** A roll's rejects in brief (RejectSummary) from the lines it turned away. */
export function summarizeRejects(rejects: ReadonlyArray<{ batch_id: string; line: number; reason: string; raw: string }>): RejectSummary {
  const reasons: Record<string, number> = {};
  for (const r of rejects) {
    const key = r.reason in reasons || Object.keys(reasons).length < REJECT_REASONS ? r.reason : 'other';
    reasons[key] = (reasons[key] ?? 0) + 1;
  }
  const examples = rejects.slice(0, REJECT_EXAMPLES).map((r) => ({
    batch_id: r.batch_id, line: r.line, reason: r.reason,
    raw: r.raw.length > REJECT_EXAMPLE_CHARS ? `${r.raw.slice(0, REJECT_EXAMPLE_CHARS)}…` : r.raw,
  }));
  return { reasons, examples };
}

/** One roll's entry in a sink's recent rejects. */
export interface RecentRejectRoll extends RejectSummary {
  at: string;
  rows: number;
  snapshot_id: string | null;
  file: string | null;
}
