import { currentSnapshot, readLiveFiles, readSnapshotManifests, snapshotById, type LiveFile, type LiveFiles, type SnapshotManifests, type TableMetadata } from '@floe/iceberg';
import type { TableAccess } from '@floe/catalog-client';

// The main branch's head as compaction and the manifest rewrite see it: its
// manifest list, and (when asked) every live entry of its manifests with the
// sequence numbers and row ids they inherit (@floe/iceberg's readLiveFiles,
// which the hosted query reads any snapshot with). Also the one test of
// whether a replace may be rebuilt on a head that moved: only appends came
// between.

export type { LiveFile };
export type Head = SnapshotManifests;
export type HeadFiles = LiveFiles;

export async function readHead(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<Head | null> {
  const snapshot = currentSnapshot(t.metadata);
  return snapshot ? readSnapshotManifests((p) => t.read(p), snapshot) : null;
}

export async function readHeadFiles(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<HeadFiles | null> {
  const snapshot = currentSnapshot(t.metadata);
  return snapshot ? readLiveFiles((p) => t.read(p), snapshot) : null;
}

/**
 * Whether `now`'s main head descends from `planned` through appends only:
 * then every file live at `planned` is still live and a replace may be
 * rebuilt on the new head. Anything else (an overwrite, a delete, another
 * replace, an expired link) means planning again.
 */
export function onlyAppendsSince(now: TableMetadata, planned: bigint): boolean {
  let s = currentSnapshot(now);
  const seen = new Set<bigint>();
  while (s && !seen.has(s['snapshot-id'])) {
    if (s['snapshot-id'] === planned) return true;
    if (s.summary?.operation !== 'append') return false;
    seen.add(s['snapshot-id']);
    const parent = s['parent-snapshot-id'];
    s = parent === undefined || parent === null ? undefined : snapshotById(now, BigInt(parent));
  }
  return false;
}
