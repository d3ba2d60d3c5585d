// Which delete files apply to a group of data files that compaction rewrites
// (spec "Scan Planning"), and which of them the rewrite makes useless. Pure.
//
// - A position delete file applies to a data file of the same spec and
//   partition whose data sequence number is not greater than its own; a
//   deletion vector (v3, Puffin) only to the file it names.
// - An equality delete file applies to data files with a strictly smaller data
//   sequence number, of the same spec and partition — or to every partition
//   when its own spec is unpartitioned (a global delete).
// A position delete file or deletion vector that names only rewritten files
// (`referenced_data_file`, or equal lower and upper bounds on `file_path`)
// deletes nothing once they are gone: the replace removes it. Any other
// delete file the rewrite applied is removed too once no data file it could
// apply to stays live (`danglingAfterRewrite`): the rewritten files' rows
// carry it out already, and the new files' sequence number (the replace's,
// newer than every delete) puts them out of its reach.

import { FileContent, type DataFile } from '../files/manifest';
import { partitionKey } from '../files/partition';

/** The reserved field id of `file_path` in position delete files. */
export const DELETE_FILE_PATH_FIELD_ID = 2147483546;

export interface ScopedFile {
  file: DataFile;
  specId: number;
  /** Data sequence number. */
  sequenceNumber: bigint;
}

export interface GroupDeletes {
  /** Position delete files (Parquet) that apply to some file of the group. */
  position: ScopedFile[];
  /** Deletion vectors (v3) of files of the group. */
  vectors: ScopedFile[];
  equality: ScopedFile[];
  /** Position delete files and deletion vectors that name only a file of the group: useless once it is rewritten. */
  removable: ScopedFile[];
}

/** The one data file a position delete file names, if it names just one. */
export function referencedDataFile(f: DataFile): string | null {
  if (f.referenced_data_file) return f.referenced_data_file;
  const lo = f.lower_bounds?.get(DELETE_FILE_PATH_FIELD_ID);
  const hi = f.upper_bounds?.get(DELETE_FILE_PATH_FIELD_ID);
  if (!lo || !hi || Buffer.compare(Buffer.from(lo), Buffer.from(hi)) !== 0) return null;
  return Buffer.from(lo).toString('utf8');
}

export const isDeletionVector = (f: DataFile) => (f.content ?? 0) === FileContent.POSITION_DELETES && f.file_format.toLowerCase() === 'puffin';

/**
 * The deletes that apply to `group` (data files of one spec and partition),
 * chosen from the live `deletes`; `unpartitionedSpecs` are the ids of specs
 * without fields (their equality deletes are global).
 */
export function deletesForGroup(group: readonly ScopedFile[], deletes: readonly ScopedFile[], unpartitionedSpecs: ReadonlySet<number>): GroupDeletes {
  const out: GroupDeletes = { position: [], vectors: [], equality: [], removable: [] };
  if (!group.length) return out;
  const specId = group[0].specId;
  const partition = partitionKey(group[0].file.partition);
  const paths = new Map(group.map((g) => [g.file.file_path, g]));
  const minSeq = group.reduce((min, g) => (g.sequenceNumber < min ? g.sequenceNumber : min), group[0].sequenceNumber);
  const samePartition = (d: ScopedFile) => d.specId === specId && partitionKey(d.file.partition) === partition;
  for (const d of deletes) {
    const content = d.file.content ?? 0;
    if (content === FileContent.POSITION_DELETES) {
      const named = referencedDataFile(d.file);
      if (named !== null) {
        const target = paths.get(named);
        if (!target || target.sequenceNumber > d.sequenceNumber || !samePartition(d)) continue;
        (isDeletionVector(d.file) ? out.vectors : out.position).push(d);
        out.removable.push(d);
      } else if (samePartition(d) && d.sequenceNumber >= minSeq) out.position.push(d);
    } else if (content === FileContent.EQUALITY_DELETES) {
      if (d.sequenceNumber <= minSeq) continue;
      if (unpartitionedSpecs.has(d.specId) || samePartition(d)) out.equality.push(d);
    }
  }
  return out;
}

/**
 * The applied delete files (position files naming several data files,
 * equality deletes) that apply to no data file once `rewritten` are gone:
 * no data file of `live` that stays is in their scope with a sequence number
 * they reach (position: not greater than theirs; equality: strictly smaller).
 */
export function danglingAfterRewrite(
  applied: readonly ScopedFile[], live: readonly ScopedFile[], rewritten: ReadonlySet<string>, unpartitionedSpecs: ReadonlySet<number>,
): ScopedFile[] {
  // The oldest data sequence number that stays, per spec and partition and overall.
  const oldest = new Map<string, bigint>();
  let oldestAnywhere: bigint | null = null;
  for (const f of live) {
    if (rewritten.has(f.file.file_path)) continue;
    const key = `${f.specId}|${partitionKey(f.file.partition)}`;
    const seen = oldest.get(key);
    if (seen === undefined || f.sequenceNumber < seen) oldest.set(key, f.sequenceNumber);
    if (oldestAnywhere === null || f.sequenceNumber < oldestAnywhere) oldestAnywhere = f.sequenceNumber;
  }
  const seen = new Set<string>();
  return applied.filter((d) => {
    if (seen.has(d.file.file_path)) return false;
    seen.add(d.file.file_path);
    const content = d.file.content ?? 0;
    const global = content === FileContent.EQUALITY_DELETES && unpartitionedSpecs.has(d.specId);
    const staying = global ? oldestAnywhere : oldest.get(`${d.specId}|${partitionKey(d.file.partition)}`) ?? null;
    if (staying === null) return true;
    return content === FileContent.EQUALITY_DELETES ? staying >= d.sequenceNumber : staying > d.sequenceNumber;
  });
}
