// Orphan files: objects under a table's location that no metadata references, left by
// writers that died between writing and committing (or a cleanup that died between
// committing and deleting). Two pure steps: `liveFiles` builds what metadata reaches,
// `planOrphans` compares a storage listing with it.
// Invariants: a file younger than the cut is never a candidate (a writer may still be
// about to commit it; Iceberg's default is 3 days); a listed file whose path matches a
// live one except for its scheme (s3a:// vs s3://) is reported, never deleted, as the
// Java reference does by default; an empty live set is refused, since it can only mean
// the caller lost the metadata, and planning against it would delete the whole table.

import { metadataFileLocation } from '../metadata/helpers';
import type { TableMetadata } from '../metadata/model';
import { snapshotPaths, type SnapshotFiles } from './reachability';

export interface LiveFileOptions {
  /** Where the current metadata JSON is stored (metadata does not record its own path). */
  metadataLocation: string | null;
}

/**
 * Every path the table's metadata reaches: each snapshot's files, the current and
 * logged metadata files, statistics files, and the version hint Hadoop-style catalogs
 * keep beside the metadata. `collected` must cover every snapshot of `metadata`.
 */
export function liveFiles(metadata: TableMetadata, collected: readonly SnapshotFiles[], opts: LiveFileOptions): Set<string> {
  const byId = new Map(collected.map((s) => [s.snapshotId, s]));
  const live = new Set<string>();
  for (const s of metadata.snapshots ?? []) {
    const files = byId.get(s['snapshot-id']);
    // A missing snapshot would make its files look orphaned.
    if (!files) throw new Error(`liveFiles: snapshot ${s['snapshot-id']} was not collected`);
    for (const p of snapshotPaths(files)) live.add(p);
    if (s['manifest-list']) live.add(s['manifest-list']);
  }
  for (const f of [...(metadata.statistics ?? []), ...(metadata['partition-statistics'] ?? [])]) live.add(f['statistics-path']);
  for (const entry of metadata['metadata-log'] ?? []) live.add(entry['metadata-file']);
  if (opts.metadataLocation) live.add(opts.metadataLocation);
  live.add(metadataFileLocation(metadata, 'version-hint.text'));
  return live;
}

export interface ListedFile {
  /** The full location, spelled as metadata spells paths (scheme, bucket, key). */
  path: string;
  lastModified: Date | number;
  size: number;
}

export interface OrphanInput {
  listed: Iterable<ListedFile>;
  live: ReadonlySet<string>;
  /** The table location; only files under it are considered. */
  location: string;
  nowMs: number;
  /** Minimum age of a candidate, e.g. 3 days. */
  olderThanMs: number;
}

export interface OrphanPlan {
  candidates: ListedFile[];
  bytes: number;
  /** Unreferenced but younger than the cut: left for a later pass. */
  tooNew: number;
  /** Listed paths equal to a live path but for the scheme: never deleted, worth a look. */
  mismatched: string[];
}

export function planOrphans(input: OrphanInput): OrphanPlan {
  if (input.live.size === 0) throw new Error('planOrphans: refusing to plan against an empty live set');
  const prefix = `${withoutScheme(input.location).replace(/\/+$/, '')}/`;
  const liveLoose = new Set([...input.live].map(withoutScheme));
  const cut = input.nowMs - input.olderThanMs;
  const plan: OrphanPlan = { candidates: [], bytes: 0, tooNew: 0, mismatched: [] };
  for (const file of input.listed) {
    if (input.live.has(file.path)) continue;
    const loose = withoutScheme(file.path);
    if (!loose.startsWith(prefix)) continue;
    if (liveLoose.has(loose)) {
      plan.mismatched.push(file.path);
      continue;
    }
    const modified = typeof file.lastModified === 'number' ? file.lastModified : file.lastModified.getTime();
    if (!(modified < cut)) {
      plan.tooNew++;
      continue;
    }
    plan.candidates.push(file);
    plan.bytes += file.size;
  }
  return plan;
}

/** `s3a://b//t/x` → `b/t/x`: the part of a path that names the object. */
function withoutScheme(path: string): string {
  return path.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\//, '').replace(/\/{2,}/g, '/');
}
