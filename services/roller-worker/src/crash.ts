// The fault tests' hook (FLOE_ROLLER_CRASH_AT, tests/fault/roller-crash.test.ts):
// the process ends at that stage of a roll, exit code 86, so a fresh roller
// must finish the work without losing or doubling a row.

export type CrashStage = 'after_files' | 'after_commit' | 'before_mark';

/** Ends the process here when the configured stage is this one. */
export function maybeCrash(configured: CrashStage | undefined, stage: CrashStage): void {
  if (configured === stage) process.exit(86);
}
