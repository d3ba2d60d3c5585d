import {
  EntryStatus, FileContent, READS_AT_ONCE, currentSnapshot, mapLimited, readManifest, readManifestList, snapshotById,
  type DataFile, type ManifestFile, type Snapshot, type TableMetadata,
} from '@floe/iceberg';
import type { TableAccess } from '../table-access';

// The main branch's head as compaction and the manifest rewrite see it: its
// manifest list, and (when asked) every live entry of its manifests with the
// sequence numbers and row ids they inherit. Also the one test of whether a
// replace may be rebuilt on a head that moved: only appends came between.

export interface LiveFile {
  file: DataFile;
  specId: number;
  /** Data sequence number (inherited where the manifest left it to be). */
  sequenceNumber: bigint;
  /** v3: the file's first row id (inherited). */
  firstRowId: bigint | null;
}

export interface Head {
  snapshot: Snapshot;
  manifests: ManifestFile[];
}

export interface HeadFiles extends Head {
  data: LiveFile[];
  deletes: LiveFile[];
}

export async function readHead(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<Head | null> {
  const snapshot = currentSnapshot(t.metadata);
  if (!snapshot?.['manifest-list']) return null;
  return { snapshot, manifests: readManifestList(await t.read(snapshot['manifest-list'])).manifests };
}

export async function readHeadFiles(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<HeadFiles | null> {
  const head = await readHead(t);
  if (!head) return null;
  const data: LiveFile[] = [];
  const deletes: LiveFile[] = [];
  const read = await mapLimited(head.manifests, READS_AT_ONCE, async (mf) => ({ mf, entries: readManifest(await t.read(mf.manifest_path), mf).entries }));
  for (const { mf, entries } of read) {
    for (const e of entries) {
      if (e.status === EntryStatus.DELETED) continue;
      const live = { file: e.data_file, specId: mf.partition_spec_id, sequenceNumber: BigInt(e.sequence_number ?? 0n), firstRowId: e.data_file.first_row_id ?? null };
      ((e.data_file.content ?? FileContent.DATA) === FileContent.DATA ? data : deletes).push(live);
    }
  }
  return { ...head, data, deletes };
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
