// Compaction planning (bin-pack): which small data files to rewrite together. Pure: the
// worker reads the groups' rows (applying their deletes), writes files near the target
// and commits a `replace` snapshot.
//
// Rule (issue 28, after Iceberg's rewrite-data-files defaults): a file is small under
// `smallRatio` × target; a partition (spec id + partition tuple) is compacted when it
// holds at least `minInputFiles` small files. Its small files are packed first-fit
// decreasing into groups of at most the target, so each group becomes one file near
// the target. A group of one file is dropped: rewriting it alone gains nothing (five
// 90 MB files under a 128 MB target give no group, since no two fit together).
// Delete files are not planned here: the worker applies the deletes of each group's
// files when it rewrites them.

import { FileContent, type DataFile } from '../files/manifest';
import { partitionKey, type PartitionData } from '../files/partition';
import { formatMegabytes, partitionLabel, plural } from './words';

export interface BinPackEntry {
  dataFile: DataFile;
  specId: number;
}

export interface BinPackOptions {
  targetFileBytes: number;
  /** Default 5. */
  minInputFiles?: number;
  /** Default 0.75. */
  smallRatio?: number;
}

export interface BinPackGroup {
  specId: number;
  partition: PartitionData;
  files: DataFile[];
  inputBytes: number;
  /** e.g. `37 files under 96 MB in partition (none)`. */
  trigger: string;
}

export interface PartitionFiles {
  specId: number;
  partition: PartitionData;
  label: string;
  files: number;
  smallFiles: number;
  /** At least minInputFiles small files. */
  eligible: boolean;
}

export interface BinPackPlan {
  /** Files under this many bytes are small. */
  smallFileBytes: number;
  smallFiles: number;
  /** Partitions with data files, most small files first. */
  partitions: PartitionFiles[];
  groups: BinPackGroup[];
}

export function planBinPack(entries: readonly BinPackEntry[], opts: BinPackOptions): BinPackPlan {
  const target = opts.targetFileBytes;
  const minInputFiles = opts.minInputFiles ?? 5;
  const smallFileBytes = Math.floor((opts.smallRatio ?? 0.75) * target);
  const bySpecs = new Set(entries.map((e) => e.specId)).size > 1;

  // group by partition
  const partitions = new Map<string, { specId: number; partition: PartitionData; all: number; small: DataFile[] }>();
  for (const { dataFile, specId } of entries) {
    if ((dataFile.content ?? FileContent.DATA) !== FileContent.DATA) continue;
    const key = `${specId}|${partitionKey(dataFile.partition)}`;
    let p = partitions.get(key);
    if (!p) partitions.set(key, (p = { specId, partition: dataFile.partition ?? {}, all: 0, small: [] }));
    p.all++;
    if (Number(dataFile.file_size_in_bytes) < smallFileBytes) p.small.push(dataFile);
  }

  // pack eligible partitions
  const summaries: PartitionFiles[] = [];
  const groups: BinPackGroup[] = [];
  const ordered = [...partitions.entries()].sort(([ka, a], [kb, b]) => b.small.length - a.small.length || (ka < kb ? -1 : 1));
  for (const [, p] of ordered) {
    const label = partitionLabel(p.partition) + (bySpecs ? ` of spec ${p.specId}` : '');
    const eligible = p.small.length >= minInputFiles;
    summaries.push({ specId: p.specId, partition: p.partition, label, files: p.all, smallFiles: p.small.length, eligible });
    if (!eligible) continue;
    const trigger = `${plural(p.small.length, 'file')} under ${formatMegabytes(smallFileBytes)} in partition ${label}`;
    for (const bin of firstFitDecreasing(p.small, target)) {
      if (bin.files.length < 2) continue;
      groups.push({ specId: p.specId, partition: p.partition, files: bin.files, inputBytes: bin.bytes, trigger });
    }
  }
  const smallFiles = summaries.reduce((n, p) => n + p.smallFiles, 0);
  return { smallFileBytes, smallFiles, partitions: summaries, groups };
}

function firstFitDecreasing(files: DataFile[], capacity: number): { files: DataFile[]; bytes: number }[] {
  const size = (f: DataFile) => Number(f.file_size_in_bytes);
  const sorted = [...files].sort((a, b) => size(b) - size(a) || (a.file_path < b.file_path ? -1 : 1));
  const bins: { files: DataFile[]; bytes: number }[] = [];
  for (const f of sorted) {
    let bin = bins.find((b) => b.bytes + size(f) <= capacity);
    if (!bin) bins.push((bin = { files: [], bytes: 0 }));
    bin.files.push(f);
    bin.bytes += size(f);
  }
  return bins;
}

