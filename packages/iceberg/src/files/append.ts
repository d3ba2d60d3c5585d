// Fast append: one new manifest for the new data files, a new manifest list that
// carries every manifest of the parent snapshot forward, and the `add-snapshot`
// snapshot object. Committing (add-snapshot + set-snapshot-ref main, with the
// usual assert-ref-snapshot-id requirement) is the caller's job.
import { EntryStatus, writeManifest, type DataFile } from './manifest.js';
import { readManifestList, writeManifestList, type ManifestFile } from './manifest-list.js';
import type { AvroCodec } from './avro.js';
import type { ReadFile, SnapshotLike } from './row-count.js';
import type { FormatVersion, PartitionSpec, Schema, Snapshot } from '../metadata/model.js';
import { partitionKey } from './partition.js';

export interface AppendOptions {
  formatVersion: FormatVersion;
  schema: Schema;
  /** Spec the new files were written with (normally the table's default spec). */
  spec: PartitionSpec;
  /** The branch head the append builds on; null/undefined for the first snapshot. */
  parent?: SnapshotLike | null;
  /** Table `last-sequence-number` (ignored for v1). */
  lastSequenceNumber: bigint;
  /** v3: table `next-row-id`; becomes the snapshot's first-row-id. */
  nextRowId?: bigint;
  /** Data files to add (content DATA), e.g. from parquetDataFile(). */
  files: DataFile[];
  snapshotId: bigint;
  manifestPath: string;
  manifestListPath: string;
  read: ReadFile;
  timestampMs?: number;
  /** Extra summary properties (e.g. engine-name); cannot override the computed ones. */
  summary?: Record<string, string>;
  codec?: AvroCodec;
}

/** Snapshot object for the `add-snapshot` table update; an append always writes these two. */
export type AppendSnapshot = Snapshot & Required<Pick<Snapshot, 'manifest-list' | 'summary'>>;

export interface AppendResult {
  snapshot: AppendSnapshot;
  /** Upload these before committing: the new manifest, then the manifest list. */
  uploads: { path: string; bytes: Uint8Array }[];
  /** v3: the table's next-row-id after this commit (first-row-id + added-rows). */
  nextRowId?: bigint;
}

export async function buildAppend(opts: AppendOptions): Promise<AppendResult> {
  const { formatVersion: v, snapshotId, parent } = opts;
  if (!opts.files.length) throw new Error('append needs at least one data file');
  for (const f of opts.files) if ((f.content ?? 0) !== 0) throw new Error(`append takes data files only: ${f.file_path}`);
  if (v >= 3 && opts.nextRowId === undefined) throw new Error('v3 append needs nextRowId');

  const manifest = writeManifest({
    formatVersion: v,
    schema: opts.schema,
    spec: opts.spec,
    content: 'data',
    snapshotId,
    path: opts.manifestPath,
    codec: opts.codec,
    // null sequence numbers and first_row_id: inherited once the commit assigns them
    entries: opts.files.map((data_file) => ({
      status: EntryStatus.ADDED,
      snapshot_id: snapshotId,
      sequence_number: null,
      file_sequence_number: null,
      data_file: { ...data_file, first_row_id: null },
    })),
  });

  const parentId = parent ? BigInt(parent['snapshot-id']) : null;
  let carried: ManifestFile[] = [];
  if (parent?.['manifest-list']) carried = readManifestList(await opts.read(parent['manifest-list'])).manifests;
  else if (parent?.manifests?.length) throw new Error('parent snapshot lists manifests inline (v1 without a manifest list): not supported');

  const sequenceNumber = v === 1 ? 0n : opts.lastSequenceNumber + 1n;
  // New manifest first, as the reference implementation orders a fast append.
  const list = writeManifestList({
    formatVersion: v,
    snapshotId,
    parentSnapshotId: parentId,
    sequenceNumber,
    firstRowId: v >= 3 ? opts.nextRowId : undefined,
    manifests: [manifest.manifestFile, ...carried],
    codec: opts.codec,
  });

  const snapshot: AppendSnapshot = {
    'snapshot-id': snapshotId,
    ...(parentId !== null ? { 'parent-snapshot-id': parentId } : {}),
    ...(v >= 2 ? { 'sequence-number': sequenceNumber } : {}),
    'timestamp-ms': BigInt(opts.timestampMs ?? Date.now()),
    'manifest-list': opts.manifestListPath,
    summary: { ...opts.summary, ...appendSummary(opts, carried) },
    ...(opts.schema['schema-id'] !== undefined ? { 'schema-id': opts.schema['schema-id'] } : {}),
    ...(v >= 3 ? { 'first-row-id': opts.nextRowId!, 'added-rows': list.addedRows } : {}),
  };
  return {
    snapshot,
    uploads: [
      { path: opts.manifestPath, bytes: manifest.bytes },
      { path: opts.manifestListPath, bytes: list.bytes },
    ],
    ...(v >= 3 ? { nextRowId: opts.nextRowId! + list.addedRows } : {}),
  };
}

/**
 * Summary per spec Appendix F. Totals continue the parent's; when the parent
 * summary lacks one, it is derived from the parent's manifest list counts if
 * those are complete, and otherwise left out rather than guessed.
 */
function appendSummary(opts: AppendOptions, carried: ManifestFile[]): Record<string, string> {
  const addedRecords = opts.files.reduce((s, f) => s + BigInt(f.record_count), 0n);
  const addedSize = opts.files.reduce((s, f) => s + BigInt(f.file_size_in_bytes), 0n);
  const partitions = new Set(opts.files.map((f) => partitionKey(f.partition)));
  const out: Record<string, string> = {
    operation: 'append',
    'added-data-files': String(opts.files.length),
    'added-records': String(addedRecords),
    'added-files-size': String(addedSize),
    'changed-partition-count': String(partitions.size),
  };
  const prev = opts.parent?.summary ?? {};
  const fromList = listTotals(carried);
  const base = (key: string, derived: bigint | undefined): bigint | undefined => {
    if (!opts.parent) return 0n;
    const p = prev[key];
    if (p !== undefined && /^-?\d+$/.test(p)) return BigInt(p);
    return derived;
  };
  const totals: [string, bigint | undefined, bigint][] = [
    ['total-records', base('total-records', fromList?.records), addedRecords],
    ['total-files-size', base('total-files-size', undefined), addedSize],
    ['total-data-files', base('total-data-files', fromList?.dataFiles), BigInt(opts.files.length)],
    ['total-delete-files', base('total-delete-files', fromList?.deleteFiles), 0n],
    ['total-position-deletes', base('total-position-deletes', fromList?.deleteFiles === 0n ? 0n : undefined), 0n],
    ['total-equality-deletes', base('total-equality-deletes', fromList?.deleteFiles === 0n ? 0n : undefined), 0n],
  ];
  for (const [key, before, added] of totals) if (before !== undefined) out[key] = String(before + added);
  return out;
}

/** Rows and live files by a manifest list's counts; undefined when a writer left a count out. */
export function listTotals(manifests: ManifestFile[]) {
  let records = 0n;
  let dataFiles = 0n;
  let deleteFiles = 0n;
  for (const m of manifests) {
    const counts = [m.added_rows_count, m.existing_rows_count, m.added_files_count, m.existing_files_count];
    if (counts.some((c) => c === null)) return undefined;
    const files = BigInt(m.added_files_count! + m.existing_files_count!);
    if (m.content === 0) {
      records += m.added_rows_count! + m.existing_rows_count!;
      dataFiles += files;
    } else deleteFiles += files;
  }
  return { records, dataFiles, deleteFiles };
}
