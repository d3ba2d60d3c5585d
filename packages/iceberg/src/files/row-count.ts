// Row counting for a table snapshot, cheapest trustworthy source first:
// snapshot summary -> manifest list counts -> reading the manifests.
import { EntryStatus, FileContent, readManifest } from './manifest.js';
import { ManifestContent, readManifestList, type ManifestFile } from './manifest-list.js';

export type ReadFile = (path: string) => Promise<Uint8Array>;

/** A snapshot as table metadata JSON has it (only the fields used here). */
export interface SnapshotLike {
  'snapshot-id': bigint | number | string;
  'manifest-list'?: string;
  /** v1 only: manifests listed inline instead of a manifest list. */
  manifests?: string[];
  summary?: Record<string, string | undefined>;
}

export type RowsSource =
  | 'snapshot_summary'
  | 'snapshot_summary_net_of_deletes'
  | 'manifest_list'
  | 'manifests'
  | 'manifests_net_of_deletes'
  | 'no_snapshot'
  | 'no_manifest_list';

export interface RowCount {
  /** Live rows, net of deletes when known; null only when nothing could be read. */
  rows: number | null;
  rows_source: RowsSource;
  /** False when equality deletes exist: one equality delete can remove any number of rows. */
  rows_is_exact: boolean;
  /** Rows in live data files before deletes (set when deletes were subtracted). */
  rows_gross?: number;
  position_delete_rows?: number;
  equality_delete_rows?: number;
  /** Live data / delete files; null when the chosen source does not say. */
  data_files: number | null;
  delete_files: number | null;
}

export async function countRows(snapshot: SnapshotLike | null | undefined, read: ReadFile): Promise<RowCount> {
  if (!snapshot) {
    return { rows: 0, rows_source: 'no_snapshot', rows_is_exact: true, data_files: 0, delete_files: 0 };
  }
  return fromSummary(snapshot.summary) ?? (await fromManifestList(snapshot, read)) ?? (await fromManifests(snapshot, read));
}

function num(v: string | undefined): number | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? n : undefined;
}

function fromSummary(summary: SnapshotLike['summary']): RowCount | undefined {
  const total = num(summary?.['total-records']);
  if (total === undefined) return undefined;
  const pos = num(summary?.['total-position-deletes']) ?? 0;
  const eq = num(summary?.['total-equality-deletes']) ?? 0;
  const files = { data_files: num(summary?.['total-data-files']) ?? null, delete_files: num(summary?.['total-delete-files']) ?? null };
  if (pos === 0 && eq === 0) return { rows: total, rows_source: 'snapshot_summary', rows_is_exact: true, ...files };
  return {
    ...netOfDeletes(total, pos, eq),
    rows_source: 'snapshot_summary_net_of_deletes',
    ...files,
  };
}

function netOfDeletes(gross: number, pos: number, eq: number) {
  return {
    rows: Math.max(0, gross - pos - eq),
    rows_is_exact: eq === 0,
    rows_gross: gross,
    position_delete_rows: pos,
    equality_delete_rows: eq,
  };
}

const live = (m: ManifestFile) => [m.added_rows_count, m.existing_rows_count, m.added_files_count, m.existing_files_count];

/**
 * Counts from the list's added/existing rows of data manifests. The list does
 * not say which delete manifests hold equality deletes, so when any delete
 * manifest has live rows those (usually few, small) manifests are read to split
 * position from equality deletes. Returns undefined when a count is missing
 * (optional in v1 lists) so the caller falls back to reading manifests.
 */
async function fromManifestList(snapshot: SnapshotLike, read: ReadFile): Promise<RowCount | undefined> {
  const path = snapshot['manifest-list'];
  if (!path) return undefined;
  const { manifests } = readManifestList(await read(path));
  if (manifests.some((m) => live(m).some((c) => c === null))) return undefined;
  let dataRows = 0n;
  let dataFiles = 0;
  let deleteFiles = 0;
  const deleteManifests: ManifestFile[] = [];
  for (const m of manifests) {
    const files = m.added_files_count! + m.existing_files_count!;
    if (m.content === ManifestContent.DATA) {
      dataRows += m.added_rows_count! + m.existing_rows_count!;
      dataFiles += files;
    } else {
      deleteFiles += files;
      if (m.added_rows_count! + m.existing_rows_count! > 0n) deleteManifests.push(m);
    }
  }
  const base = { rows_source: 'manifest_list' as const, data_files: dataFiles, delete_files: deleteFiles };
  if (!deleteManifests.length) return { rows: Number(dataRows), rows_is_exact: true, ...base };
  const d = await tally(deleteManifests, read);
  return { ...netOfDeletes(Number(dataRows), Number(d.pos), Number(d.eq)), ...base };
}

async function fromManifests(snapshot: SnapshotLike, read: ReadFile): Promise<RowCount> {
  let manifests: ManifestFile[] | undefined;
  if (snapshot['manifest-list']) manifests = readManifestList(await read(snapshot['manifest-list'])).manifests;
  else if (snapshot.manifests?.length) manifests = snapshot.manifests.map(inlineManifest);
  if (!manifests) {
    return { rows: null, rows_source: 'no_manifest_list', rows_is_exact: false, data_files: null, delete_files: null };
  }
  const t = await tally(manifests, read);
  const files = { data_files: t.dataFiles, delete_files: t.deleteFiles };
  if (t.pos === 0n && t.eq === 0n) return { rows: Number(t.data), rows_source: 'manifests', rows_is_exact: true, ...files };
  return { ...netOfDeletes(Number(t.data), Number(t.pos), Number(t.eq)), rows_source: 'manifests_net_of_deletes', ...files };
}

/** v1 snapshots may list manifest paths inline; only the path matters for counting. */
function inlineManifest(path: string): ManifestFile {
  return {
    manifest_path: path, manifest_length: 0n, partition_spec_id: 0, content: 0, sequence_number: 0n,
    min_sequence_number: 0n, added_snapshot_id: 0n, added_files_count: null, existing_files_count: null,
    deleted_files_count: null, added_rows_count: null, existing_rows_count: null, deleted_rows_count: null,
    partitions: null, key_metadata: null, first_row_id: null,
  };
}

/** Sums record_count of live entries (ADDED, EXISTING) by file content. */
async function tally(manifests: ManifestFile[], read: ReadFile) {
  const t = { data: 0n, pos: 0n, eq: 0n, dataFiles: 0, deleteFiles: 0 };
  const contents = await Promise.all(manifests.map(async (m) => readManifest(await read(m.manifest_path))));
  for (const { entries } of contents) {
    for (const e of entries) {
      if (e.status === EntryStatus.DELETED) continue;
      const c = e.data_file.content;
      if (c === FileContent.DATA) {
        t.data += e.data_file.record_count;
        t.dataFiles++;
      } else {
        if (c === FileContent.POSITION_DELETES) t.pos += e.data_file.record_count;
        else t.eq += e.data_file.record_count;
        t.deleteFiles++;
      }
    }
  }
  return t;
}
