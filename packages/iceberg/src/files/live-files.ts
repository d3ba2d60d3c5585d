import type { Snapshot } from '../metadata/model.js';
import { READS_AT_ONCE, mapLimited } from './map-limited.js';
import { EntryStatus, FileContent, readManifest, type DataFile } from './manifest.js';
import { ManifestContent, readManifestList, type ManifestFile } from './manifest-list.js';

// The files a snapshot holds (spec "Scan Planning"): its manifest list, and
// every live entry of its manifests with the data sequence number and row id
// it inherits. What compaction plans over the main branch's head and what the
// hosted query reads at any snapshot.

export interface LiveFile {
  file: DataFile;
  specId: number;
  /** Data sequence number (inherited where the manifest left it to be). */
  sequenceNumber: bigint;
  /** v3: the file's first row id (inherited). */
  firstRowId: bigint | null;
  /** The snapshot that added the file (inherited); incremental scans choose by it. */
  addedSnapshotId?: bigint | null;
}

export interface SnapshotManifests {
  snapshot: Snapshot;
  manifests: ManifestFile[];
}

export interface LiveFiles extends SnapshotManifests {
  data: LiveFile[];
  deletes: LiveFile[];
}

/** Reads an object of the table (a manifest list, a manifest). */
export type ReadObject = (path: string) => Promise<Uint8Array>;

export async function readSnapshotManifests(read: ReadObject, snapshot: Snapshot): Promise<SnapshotManifests | null> {
  if (!snapshot['manifest-list']) return null;
  return { snapshot, manifests: readManifestList(await read(snapshot['manifest-list'])).manifests };
}

/** The live data and delete files of `snapshot`; null for a snapshot without a manifest list (v1's inline manifests are not read). */
export async function readLiveFiles(read: ReadObject, snapshot: Snapshot): Promise<LiveFiles | null> {
  const head = await readSnapshotManifests(read, snapshot);
  return head ? liveFilesOf(read, head) : null;
}

/**
 * The live files of a snapshot whose manifest list was read already.
 * `keepData`: which data manifests to read (a planner skips those whose
 * partition summaries rule out its filter); every delete manifest is read.
 */
export async function liveFilesOf(read: ReadObject, head: SnapshotManifests, keepData: (mf: ManifestFile) => boolean = () => true): Promise<LiveFiles> {
  const data: LiveFile[] = [];
  const deletes: LiveFile[] = [];
  const wanted = head.manifests.filter((mf) => mf.content !== ManifestContent.DATA || keepData(mf));
  const manifests = await mapLimited(wanted, READS_AT_ONCE, async (mf) => ({ mf, entries: readManifest(await read(mf.manifest_path), mf).entries }));
  for (const { mf, entries } of manifests) {
    for (const e of entries) {
      if (e.status === EntryStatus.DELETED) continue;
      const live: LiveFile = {
        file: e.data_file, specId: mf.partition_spec_id, sequenceNumber: BigInt(e.sequence_number ?? 0n), firstRowId: e.data_file.first_row_id ?? null,
        addedSnapshotId: e.snapshot_id ?? mf.added_snapshot_id ?? null,
      };
      ((e.data_file.content ?? FileContent.DATA) === FileContent.DATA ? data : deletes).push(live);
    }
  }
  return { ...head, data, deletes };
}
