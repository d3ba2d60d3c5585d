// A `replace` snapshot: files removed and added, or manifests merged, without
// changing the table's rows — what compaction and the manifest rewrite commit
// (spec "Snapshots": operation replace). Built on the branch head like an
// append; committing (add-snapshot + set-snapshot-ref, with the requirement on
// the head it was built on) is the caller's job.
//
// The manifests a replace touches — those holding a removed file, and those
// asked to be merged — are rewritten together, per partition spec and
// content, into as few manifests as `targetManifestBytes` allows: surviving
// entries as EXISTING with their snapshot ids and sequence numbers kept, the
// removed as DELETED (recorded for this snapshot only; the next rewrite drops
// them), and the new files as ADDED (their sequence number inherited from
// this snapshot). So every compaction also folds the one-manifest-per-roll
// tail of a sink table into a few manifests. Untouched manifests are carried
// forward as they are.
//
// If a file to remove is not live at the head, or a manifest to merge is not
// listed there, the head has moved in a way this replace cannot build on
// (another writer removed or rewrote them): `StaleReplace`.
import { EntryStatus, FileContent, readManifest, writeManifest, type DataFile, type ManifestEntry } from './manifest.js';
import { ManifestContent, readManifestList, writeManifestList, type ManifestFile } from './manifest-list.js';
import type { AvroCodec } from './avro.js';
import { READS_AT_ONCE, mapLimited } from './map-limited.js';
import type { ReadFile } from './row-count.js';
import type { FormatVersion, PartitionSpec, Schema, Snapshot } from '../metadata/model.js';
import type { AppendSnapshot } from './append.js';

export interface ReplaceOptions {
  formatVersion: FormatVersion;
  /** The table's current schema (written into the new manifests). */
  schema: Schema;
  /** The table's partition spec of an id (`specById`): a rewritten manifest keeps its spec. */
  spec: (id: number) => PartitionSpec | undefined;
  /** The branch head the replace builds on. */
  parent: Snapshot;
  lastSequenceNumber: bigint;
  /** v3: table `next-row-id`. */
  nextRowId?: bigint;
  snapshotId: bigint;
  /** Data or delete files to remove, by path; each must be live at the head. */
  remove?: ReadonlySet<string>;
  /** New data files, each with the spec it was written with. */
  add?: ReadonlyArray<{ specId: number; file: DataFile }>;
  /** Manifests to merge with the touched ones, by path; each must be listed at the head. */
  merge?: ReadonlySet<string>;
  /** `commit.manifest.target-size-bytes`: a rewritten manifest is kept near or under it. */
  targetManifestBytes: number;
  /** The path of the n-th manifest this replace writes. */
  manifestPath: (n: number) => string;
  manifestListPath: string;
  read: ReadFile;
  timestampMs?: number;
  /** Extra summary properties; cannot override the computed ones. */
  summary?: Record<string, string>;
  codec?: AvroCodec;
}

export interface ReplaceResult {
  snapshot: AppendSnapshot;
  /** Upload these before committing: the manifests, then the manifest list. */
  uploads: { path: string; bytes: Uint8Array }[];
  /** Manifests before and after, for the run's figures. */
  manifests: { before: number; after: number; rewritten: number; written: number };
}

export class StaleReplace extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StaleReplace';
  }
}

export async function buildReplace(opts: ReplaceOptions): Promise<ReplaceResult> {
  const { formatVersion: v, snapshotId, parent } = opts;
  const remove = opts.remove ?? new Set<string>();
  const merge = opts.merge ?? new Set<string>();
  const add = opts.add ?? [];
  if (!remove.size && !add.length && !merge.size) throw new Error('a replace needs files to remove or add, or manifests to merge');
  for (const { file } of add) if ((file.content ?? 0) !== FileContent.DATA) throw new Error(`replace adds data files only: ${file.file_path}`);
  if (v >= 3 && opts.nextRowId === undefined) throw new Error('v3 replace needs nextRowId');
  if (!parent['manifest-list']) throw new Error('the head lists its manifests inline (v1 without a manifest list): not supported');

  const listed = readManifestList(await opts.read(parent['manifest-list'])).manifests;
  const listedPaths = new Set(listed.map((m) => m.manifest_path));
  for (const path of merge) if (!listedPaths.has(path)) throw new StaleReplace(`manifest ${path} is no longer listed at the head`);

  // Read every manifest that may hold a removed file, and every one to merge.
  const read = await mapLimited(listed, READS_AT_ONCE, async (m) => {
    if (!merge.has(m.manifest_path) && !remove.size) return null;
    return { file: m, manifest: readManifest(await opts.read(m.manifest_path), m) };
  });

  const found = new Set<string>();
  const removed = { dataFiles: 0, deleteFiles: 0, records: 0n, bytes: 0n, positionDeletes: 0n, equalityDeletes: 0n };
  const touched = new Map<string, { specId: number; content: 'data' | 'deletes'; entries: ManifestEntry[]; bytes: number; sourceEntries: number }>();
  const carried: ManifestFile[] = [];
  let firstTouched = -1;
  listed.forEach((m, i) => {
    const r = read[i];
    const holdsRemoved = r?.manifest.entries.some((e) => e.status !== EntryStatus.DELETED && remove.has(e.data_file.file_path));
    if (!r || (!holdsRemoved && !merge.has(m.manifest_path))) {
      carried.push(m);
      return;
    }
    if (firstTouched < 0) firstTouched = carried.length;
    const content = m.content === ManifestContent.DATA ? 'data' : 'deletes';
    const key = `${content}:${m.partition_spec_id}`;
    let group = touched.get(key);
    if (!group) touched.set(key, (group = { specId: m.partition_spec_id, content, entries: [], bytes: 0, sourceEntries: 0 }));
    group.bytes += Number(m.manifest_length);
    group.sourceEntries += r.manifest.entries.length;
    for (const e of r.manifest.entries) {
      if (e.status === EntryStatus.DELETED) continue; // a previous snapshot's removal: dropped at the rewrite
      const path = e.data_file.file_path;
      if (remove.has(path)) {
        found.add(path);
        count(removed, e.data_file);
        group.entries.push({ ...e, status: EntryStatus.DELETED, snapshot_id: snapshotId });
      } else group.entries.push({ ...e, status: EntryStatus.EXISTING });
    }
  });
  for (const path of remove) if (!found.has(path)) throw new StaleReplace(`${path} is no longer live at the head`);

  for (const { specId, file } of add) {
    const key = `data:${specId}`;
    let group = touched.get(key);
    if (!group) touched.set(key, (group = { specId, content: 'data', entries: [], bytes: 0, sourceEntries: 0 }));
    group.entries.push({ status: EntryStatus.ADDED, snapshot_id: snapshotId, sequence_number: null, file_sequence_number: null, data_file: { ...file, first_row_id: null } });
  }

  // Rewrite the touched manifests, ADDED entries first, chunked near the target size.
  const written: { path: string; bytes: Uint8Array; file: ManifestFile }[] = [];
  for (const group of touched.values()) {
    const spec = opts.spec(group.specId);
    if (!spec) throw new Error(`partition spec ${group.specId} is not in the table`);
    const entries = [...group.entries].sort((a, b) => rank(a) - rank(b));
    const perEntry = group.sourceEntries ? group.bytes / group.sourceEntries : 0;
    const perManifest = perEntry > 0 ? Math.max(1, Math.floor(opts.targetManifestBytes / perEntry)) : entries.length || 1;
    for (let from = 0; from < entries.length; from += perManifest) {
      const path = opts.manifestPath(written.length);
      const out = writeManifest({
        formatVersion: v, schema: opts.schema, spec, content: group.content, snapshotId, path, codec: opts.codec,
        entries: entries.slice(from, from + perManifest),
      });
      written.push({ path, bytes: out.bytes, file: out.manifestFile });
    }
  }

  const sequenceNumber = v === 1 ? 0n : opts.lastSequenceNumber + 1n;
  const at = firstTouched < 0 ? 0 : firstTouched;
  const manifests = [...carried.slice(0, at), ...written.map((w) => w.file), ...carried.slice(at)];
  const list = writeManifestList({
    formatVersion: v, snapshotId, parentSnapshotId: parent['snapshot-id'], sequenceNumber,
    firstRowId: v >= 3 ? opts.nextRowId : undefined, manifests, codec: opts.codec,
  });

  const snapshot: AppendSnapshot = {
    'snapshot-id': snapshotId,
    'parent-snapshot-id': parent['snapshot-id'],
    ...(v >= 2 ? { 'sequence-number': sequenceNumber } : {}),
    'timestamp-ms': BigInt(opts.timestampMs ?? Date.now()),
    'manifest-list': opts.manifestListPath,
    summary: { ...opts.summary, ...replaceSummary(parent, add.map((a) => a.file), removed, { created: written.length, replaced: listed.length - carried.length, kept: carried.length }) },
    ...(opts.schema['schema-id'] !== undefined ? { 'schema-id': opts.schema['schema-id'] } : {}),
    ...(v >= 3 ? { 'first-row-id': opts.nextRowId!, 'added-rows': list.addedRows } : {}),
  };
  return {
    snapshot,
    uploads: [...written.map(({ path, bytes }) => ({ path, bytes })), { path: opts.manifestListPath, bytes: list.bytes }],
    manifests: { before: listed.length, after: manifests.length, rewritten: listed.length - carried.length, written: written.length },
  };
}

const rank = (e: ManifestEntry) => (e.status === EntryStatus.ADDED ? 0 : e.status === EntryStatus.EXISTING ? 1 : 2);

function count(removed: { dataFiles: number; deleteFiles: number; records: bigint; bytes: bigint; positionDeletes: bigint; equalityDeletes: bigint }, f: DataFile) {
  removed.bytes += BigInt(f.file_size_in_bytes);
  if ((f.content ?? 0) === FileContent.DATA) {
    removed.dataFiles++;
    removed.records += BigInt(f.record_count);
  } else {
    removed.deleteFiles++;
    if (f.content === FileContent.POSITION_DELETES) removed.positionDeletes += BigInt(f.record_count);
    else removed.equalityDeletes += BigInt(f.record_count);
  }
}

/**
 * Summary per spec Appendix F for a replace; the totals continue the
 * parent's where it states them (a total the parent lacks is left out
 * rather than guessed).
 */
function replaceSummary(
  parent: Snapshot, added: DataFile[], removed: { dataFiles: number; deleteFiles: number; records: bigint; bytes: bigint; positionDeletes: bigint; equalityDeletes: bigint },
  manifests: { created: number; replaced: number; kept: number },
): Record<string, string> {
  const addedRecords = added.reduce((s, f) => s + BigInt(f.record_count), 0n);
  const addedSize = added.reduce((s, f) => s + BigInt(f.file_size_in_bytes), 0n);
  const out: Record<string, string> = { operation: 'replace' };
  if (added.length) Object.assign(out, { 'added-data-files': String(added.length), 'added-records': String(addedRecords), 'added-files-size': String(addedSize) });
  if (removed.dataFiles) Object.assign(out, { 'deleted-data-files': String(removed.dataFiles), 'deleted-records': String(removed.records) });
  if (removed.deleteFiles) {
    out['removed-delete-files'] = String(removed.deleteFiles);
    if (removed.positionDeletes) out['removed-position-deletes'] = String(removed.positionDeletes);
    if (removed.equalityDeletes) out['removed-equality-deletes'] = String(removed.equalityDeletes);
  }
  if (removed.bytes) out['removed-files-size'] = String(removed.bytes);
  Object.assign(out, { 'manifests-created': String(manifests.created), 'manifests-replaced': String(manifests.replaced), 'manifests-kept': String(manifests.kept) });
  const prev = parent.summary ?? {};
  const totals: [string, bigint][] = [
    ['total-records', addedRecords - removed.records],
    ['total-files-size', addedSize - removed.bytes],
    ['total-data-files', BigInt(added.length - removed.dataFiles)],
    ['total-delete-files', BigInt(-removed.deleteFiles)],
    ['total-position-deletes', -removed.positionDeletes],
    ['total-equality-deletes', -removed.equalityDeletes],
  ];
  for (const [key, delta] of totals) {
    const p = prev[key];
    if (p !== undefined && /^-?\d+$/.test(p)) out[key] = String(BigInt(p) + delta);
  }
  return out;
}
