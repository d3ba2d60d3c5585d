// Manifest rewrite planning: which small manifests of a snapshot to merge. Every sink
// roll adds one manifest; merging them toward `commit.manifest.target-size-bytes` keeps
// scan planning to a few reads. Pure: the worker rewrites each group into one manifest
// (live entries as EXISTING, sequence numbers kept) and commits a `replace` snapshot.
//
// Rule, after Iceberg's merge on commit: per partition spec, data manifests under the
// target are small; when at least `minCountToMerge` (and at least two) are small, they
// are packed in manifest-list order (newest first, so each merged manifest covers one
// stretch of time and keeps time-range pruning) into groups of at most the target. A
// group of one is dropped.
// Delete manifests are left alone: a rewrite must keep every delete entry's sequence
// numbers exactly or deletes stop applying to the right rows, and compaction removes
// deletes anyway; they are counted so the health view can show them.

import { ManifestContent, type ManifestFile } from '../files/manifest-list';
import { formatMegabytes, plural } from './words';

export interface ManifestMergeOptions {
  /** `commit.manifest.target-size-bytes` (Iceberg default 8 MB). */
  targetBytes: number;
  /** `commit.manifest.min-count-to-merge` (Iceberg default 100). */
  minCountToMerge: number;
}

export interface ManifestMergeGroup {
  specId: number;
  content: 'data';
  /** In manifest-list order. */
  manifests: ManifestFile[];
  inputBytes: number;
  /** e.g. `120 manifests under 8 MB for spec 0`. */
  trigger: string;
}

export interface ManifestMergePlan {
  groups: ManifestMergeGroup[];
  /** Small data manifests across every spec, merged or not. */
  smallManifests: number;
  /** Delete manifests, never planned here. */
  deleteManifests: number;
}

export function planManifestMerge(manifests: readonly ManifestFile[], opts: ManifestMergeOptions): ManifestMergePlan {
  const target = opts.targetBytes;
  const minCount = Math.max(2, opts.minCountToMerge);
  const small = new Map<number, ManifestFile[]>();
  let deleteManifests = 0;
  for (const m of manifests) {
    if (m.content !== ManifestContent.DATA) {
      deleteManifests++;
      continue;
    }
    if (Number(m.manifest_length) >= target) continue;
    const list = small.get(m.partition_spec_id) ?? [];
    list.push(m);
    small.set(m.partition_spec_id, list);
  }

  const groups: ManifestMergeGroup[] = [];
  let smallManifests = 0;
  for (const [specId, list] of [...small.entries()].sort(([a], [b]) => a - b)) {
    smallManifests += list.length;
    if (list.length < minCount) continue;
    const trigger = `${plural(list.length, 'manifest')} under ${formatMegabytes(target)} for spec ${specId}`;
    for (const bin of nextFit(list, target)) {
      if (bin.manifests.length < 2) continue;
      groups.push({ specId, content: 'data', manifests: bin.manifests, inputBytes: bin.bytes, trigger });
    }
  }
  return { groups, smallManifests, deleteManifests };
}

/** Consecutive manifests into bins of at most `capacity`, keeping their order. */
function nextFit(list: ManifestFile[], capacity: number): { manifests: ManifestFile[]; bytes: number }[] {
  const bins: { manifests: ManifestFile[]; bytes: number }[] = [];
  let bin: { manifests: ManifestFile[]; bytes: number } | undefined;
  for (const m of list) {
    const size = Number(m.manifest_length);
    if (!bin || bin.bytes + size > capacity) bins.push((bin = { manifests: [], bytes: 0 }));
    bin.manifests.push(m);
    bin.bytes += size;
  }
  return bins;
}
