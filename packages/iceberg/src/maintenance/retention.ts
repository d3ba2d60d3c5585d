// The retention policy snapshot expiry applies, resolved in Iceberg's order: a ref's own
// `min-snapshots-to-keep` / `max-snapshot-age-ms` / `max-ref-age-ms` win over the table's
// `history.expire.*` properties, which win over the defaults the caller passes in (the
// catalog's promise: 7 days, 20 snapshots). `maxSnapshots` is Floe's cap and has no
// Iceberg property; a table keeps more history by raising min-snapshots-to-keep, which
// the cap never undercuts.

import type { SnapshotRef, TableMetadata } from '../metadata/model';

export const MAX_SNAPSHOT_AGE_PROPERTY = 'history.expire.max-snapshot-age-ms';
export const MIN_SNAPSHOTS_TO_KEEP_PROPERTY = 'history.expire.min-snapshots-to-keep';
export const MAX_REF_AGE_PROPERTY = 'history.expire.max-ref-age-ms';

export interface ExpiryDefaults {
  maxSnapshotAgeMs: number;
  minSnapshotsToKeep: number;
  /** Floe's cap on the snapshots one branch (or the unreferenced pool) keeps. */
  maxSnapshots: number;
  /** null: refs never expire by age (Iceberg's default, Long.MAX_VALUE). */
  maxRefAgeMs: number | null;
}

export interface RetentionPolicy {
  maxSnapshotAgeMs: bigint;
  minSnapshotsToKeep: number;
  maxSnapshots: number;
  maxRefAgeMs: bigint | null;
}

/** The table-wide policy: `history.expire.*` properties over `defaults`. */
export function tableRetention(meta: TableMetadata, defaults: ExpiryDefaults): RetentionPolicy {
  const props = meta.properties ?? {};
  return {
    maxSnapshotAgeMs: positiveLong(props[MAX_SNAPSHOT_AGE_PROPERTY]) ?? BigInt(defaults.maxSnapshotAgeMs),
    minSnapshotsToKeep: Math.max(1, positiveInt(props[MIN_SNAPSHOTS_TO_KEEP_PROPERTY]) ?? defaults.minSnapshotsToKeep),
    // A cap below one would contradict "the current snapshot is always kept".
    maxSnapshots: Math.max(1, defaults.maxSnapshots),
    maxRefAgeMs: positiveLong(props[MAX_REF_AGE_PROPERTY]) ?? (defaults.maxRefAgeMs === null ? null : BigInt(defaults.maxRefAgeMs)),
  };
}

/** What a branch keeps of its ancestry: its own properties over the table's policy. */
export function branchRetention(ref: SnapshotRef, table: RetentionPolicy): RetentionPolicy {
  return {
    ...table,
    maxSnapshotAgeMs: ref['max-snapshot-age-ms'] ?? table.maxSnapshotAgeMs,
    minSnapshotsToKeep: ref['min-snapshots-to-keep'] ?? table.minSnapshotsToKeep,
  };
}

/** How old a ref's snapshot may be before the ref itself is removed; null: forever. */
export function refMaxAge(ref: SnapshotRef, table: RetentionPolicy): bigint | null {
  return ref['max-ref-age-ms'] ?? table.maxRefAgeMs;
}

// A property that is not a positive integer is ignored rather than failing every run:
// the table keeps the default, as if the property were unset. Every numeric
// maintenance property is read this way (packages/queues maintenance-rules.ts too).
export function positiveLong(text: string | undefined): bigint | undefined {
  if (text === undefined || !/^\s*\d+\s*$/.test(text)) return undefined;
  const v = BigInt(text.trim());
  return v > 0n ? v : undefined;
}

export function positiveInt(text: string | undefined): number | undefined {
  const v = positiveLong(text);
  return v === undefined || v > 2_147_483_647n ? undefined : Number(v);
}
