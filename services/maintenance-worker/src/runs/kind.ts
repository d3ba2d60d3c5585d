import type { CatalogClient } from '@floe/catalog-client';
import type { Engine } from '@floe/engine';
import type { Logger } from '@floe/http';
import type { TableAccess, TableRef } from '@floe/catalog-client';

// What every kind of run is: a plan from the table as it is (pure but for
// reading its files), and the acts that carry the plan out — a commit through
// the catalog with requirements on what the plan read, then removals with the
// table's own storage session. A plan is also a dry run's answer.

export interface RunContext {
  catalog: CatalogClient;
  logger: Logger;
  nowMs: number;
  /** Unreferenced files younger than this are left alone (writers still in flight). */
  orphanAgeMs: number;
  /** The data-plane engine, opened on first use (compaction). */
  engine: () => Promise<Engine>;
  /** Runs `fn` holding the table's commit gate (packages/db commit-gate.ts): other commits to the table wait meanwhile. */
  holdGate: <T>(ref: TableRef, fn: () => Promise<T>) => Promise<T>;
  /** A dry run's plan: it answers everything the run would do, where a real run's plan may leave what the apply finds out anyway. */
  dryRun?: boolean;
  /** Fault tests only (FLOE_MAINTENANCE_CRASH_AT): ends the process at this stage, exit code 86. */
  crashAt?: CrashStage;
}

export type CrashStage = 'after_files' | 'after_commit' | 'mid_expiry';

/** Ends the process here when the configured stage is this one (tests/fault/maintenance-crash.test.ts). */
export function maybeCrash(ctx: Pick<RunContext, 'crashAt'>, stage: CrashStage): void {
  if (ctx.crashAt === stage) process.exit(86);
}

/** The table moved under the plan in a way its commit cannot build on (a delete, an overwrite, another rewrite): plan again. */
export class PlanOutdated extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PlanOutdated';
  }
}

export interface KindPlan {
  /** Nothing to do: the run is recorded `skipped` with `reason`. */
  nothing: boolean;
  /** The plan in words: the run's reason (what it did and why). */
  reason: string;
  /** What a dry run answers: ids, counts, bytes and (capped) paths. */
  summary: Record<string, unknown>;
  /** Figures the kind alone knows, recorded with the table's `after` figures (the orphan pass: `orphan_candidates`). */
  extra?: Record<string, number>;
}

export interface KindOutcome {
  freedBytes: number;
  /** The snapshot (or metadata change) the run committed, if it committed a snapshot. */
  snapshotId: bigint | null;
  /** What the apply found out that its plan did not say, added to the run's reason. */
  detail?: string;
}

export interface KindRunner<P extends KindPlan = KindPlan> {
  plan(ctx: RunContext, t: TableAccess): Promise<P>;
  apply(ctx: RunContext, t: TableAccess, plan: P): Promise<KindOutcome>;
}

/** A dry run lists at most this many paths per list; the counts and bytes are always whole. */
export const LISTED_PATHS_MAX = 1000;

export const capped = (paths: string[]) => ({ paths: paths.slice(0, LISTED_PATHS_MAX), paths_total: paths.length, paths_truncated: paths.length > LISTED_PATHS_MAX });
