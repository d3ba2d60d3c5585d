// Shared fixtures for this folder's tests (not exported from index.ts): tables with
// snapshot histories built through the package's own create and update engine, so the
// planners see metadata exactly as the catalog stores it.
import { schema } from '../files/test-fixtures';
import { newTableMetadata } from '../metadata/new-table';
import type { SnapshotRef, TableMetadata, TableUpdate } from '../metadata/model';
import { applyUpdates } from '../metadata/updates';

export const DAY = 86_400_000;
export const NOW = 1_800_000_000_000;
export const LOCATION = 's3://bucket/wh/db/t';
export const DEFAULTS = { maxSnapshotAgeMs: 7 * DAY, minSnapshotsToKeep: 1, maxSnapshots: 20, maxRefAgeMs: null };

export interface SnapSpec {
  id: bigint;
  /** Default: the previous snapshot in the list (null for the first). */
  parent?: bigint | null;
  ts: number;
  manifestList?: string;
}

/** A ref; a branch unless it says. */
export interface RefSpec {
  'snapshot-id': bigint;
  type?: SnapshotRef['type'];
  'min-snapshots-to-keep'?: number;
  'max-snapshot-age-ms'?: bigint;
  'max-ref-age-ms'?: bigint;
}

/** A v2 table at LOCATION with these snapshots and refs (main must be among the refs when any snapshot exists). */
export function tableWith(
  snaps: SnapSpec[],
  refs: Record<string, RefSpec>,
  properties: Record<string, string> = {},
): TableMetadata {
  const base = newTableMetadata({ location: LOCATION, schema, properties, nowMs: NOW - 400 * DAY });
  const updates: TableUpdate[] = snaps.map((s, i) => ({
    action: 'add-snapshot',
    snapshot: {
      'snapshot-id': s.id,
      'parent-snapshot-id': s.parent === undefined ? (snaps[i - 1]?.id ?? null) : s.parent,
      'sequence-number': BigInt(i + 1),
      'timestamp-ms': BigInt(s.ts),
      'manifest-list': s.manifestList ?? `${LOCATION}/metadata/snap-${s.id}.avro`,
      summary: { operation: 'append' },
    },
  }));
  for (const [name, ref] of Object.entries(refs)) {
    updates.push({ action: 'set-snapshot-ref', 'ref-name': name, type: 'branch', ...ref });
  }
  return applyUpdates(base, updates, { nowMs: NOW });
}

/** `n` snapshots on one line of history, ids from `firstId`, `stepMs` apart, the newest at `newestTs`. */
export function chain(n: number, newestTs: number, stepMs: number, firstId = 1n): SnapSpec[] {
  return Array.from({ length: n }, (_, i) => ({ id: firstId + BigInt(i), ts: newestTs - (n - 1 - i) * stepMs }));
}
