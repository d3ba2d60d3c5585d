import { join } from 'node:path';
import type { TableAccess } from '@floe/catalog-client';
import type { ColumnPredicate, DataFileInput, EqualityDeleteInput, TableName, TablePart, TableView } from '@floe/engine';
import {
  READS_AT_ONCE, currentSchema, currentSnapshot, deletesForGroup, mapLimited, partitionKey, partitionSpecsOf, readDeletionVector, readLiveFiles,
  schemaById, snapshotById, type LiveFile, type ScopedFile, type Snapshot, type TableMetadata,
} from '@floe/iceberg';
import { prunedFiles } from './prune';
import { Refusal } from './refusal';

// One table of a statement, laid out for the engine (spec "Scan Planning"):
// the snapshot asked for (current, by id, or as of a moment), its live data
// files less those the statement's simple predicates rule out (prune.ts) and
// the deletes that apply to each, fetched into the statement's
// directory through the table's own vended session (or linked from the
// worker's copies, file-cache.ts, once the path is known to be the table's).
// Data files are grouped by spec and partition when equality deletes could
// cross partitions; position deletes and deletion vectors name their files
// and need no grouping.

/** Which snapshot a statement reads: by id, as of a moment, or the current one (both null). */
export interface SnapshotChoice {
  snapshotId: bigint | null;
  asOfMs: number | null;
}

export interface PlannedTable {
  view: TableView;
  snapshotId: bigint | null;
  /** Files fetched (data and deletes), and their bytes. */
  files: number;
  bytes: number;
  /** Data files left out by their bounds (prune.ts). */
  skipped: number;
}

/** Puts the table file `path` at `localPath`: fetched, or linked from a kept copy. */
export type PlaceFile = (t: TableAccess, path: string, localPath: string) => Promise<void>;

const FETCHES_AT_ONCE = 8;

const nameOf = (n: TableName) => `${n.namespace}.${n.table}`;

export function chosenSnapshot(m: TableMetadata, name: TableName, at: SnapshotChoice): Snapshot | null {
  if (at.snapshotId !== null) {
    const s = snapshotById(m, at.snapshotId);
    if (!s) throw new Refusal(404, 'not_found', `snapshot ${at.snapshotId} is not among the snapshots of ${nameOf(name)} (expired, or of another table)`, { snapshot_id: String(at.snapshotId) });
    return s;
  }
  if (at.asOfMs !== null) {
    // The snapshot that was current then: the last entry of the main branch's history at or before the moment.
    const log = (m['snapshot-log'] ?? []).filter((e) => Number(e['timestamp-ms']) <= at.asOfMs!);
    const entry = log.at(-1);
    if (!entry) throw new Refusal(404, 'not_found', `${nameOf(name)} had no snapshot at ${new Date(at.asOfMs).toISOString()}`, { as_of: new Date(at.asOfMs).toISOString() });
    const s = snapshotById(m, BigInt(entry['snapshot-id']));
    if (!s) throw new Refusal(404, 'not_found', `the snapshot of ${nameOf(name)} current at ${new Date(at.asOfMs).toISOString()} has expired`, { snapshot_id: String(entry['snapshot-id']) });
    return s;
  }
  return currentSnapshot(m) ?? null;
}

export async function planTable(
  t: TableAccess, name: TableName, at: SnapshotChoice, predicates: readonly ColumnPredicate[] | undefined, dir: string, index: number, place: PlaceFile,
): Promise<PlannedTable> {
  const m = t.metadata;
  const snapshot = chosenSnapshot(m, name, at);
  const schemaId = snapshot?.['schema-id'];
  const schema = (schemaId !== undefined && schemaId !== null ? schemaById(m, schemaId) : undefined) ?? currentSchema(m);
  if (snapshot && !snapshot['manifest-list']) {
    throw new Refusal(400, 'invalid_value', `${nameOf(name)} is a v1 table whose snapshot lists its manifests inline; the hosted query reads tables with manifest lists only`, { table: nameOf(name) });
  }
  const live = snapshot ? await readLiveFiles((p) => t.read(p), snapshot) : null;
  const snapshotId = snapshot ? snapshot['snapshot-id'] : null;
  const data = live ? prunedFiles(m, schema, live.data, predicates) : [];
  const skipped = (live?.data.length ?? 0) - data.length;
  if (!live || !data.length) return { view: { ...name, schema, parts: [] }, snapshotId, files: 0, bytes: 0, skipped };

  for (const f of [...data, ...live.deletes]) {
    if (!t.contains(f.file.file_path)) {
      throw new Refusal(403, 'forbidden', `the metadata of ${nameOf(name)} names a file outside the table's location (${f.file.file_path}); it is not read`);
    }
  }
  const groups = partsOf(m, data, live.deletes);

  // Every file once, under the statement's directory; deletion vectors are read as ranges.
  const local = new Map<string, string>();
  const wanted = new Map<string, ScopedFile>();
  for (const g of groups) for (const f of [...g.files, ...g.position, ...g.equality]) wanted.set(f.file.file_path, f);
  let n = 0;
  for (const path of wanted.keys()) local.set(path, join(dir, `t${index}-${n++}.parquet`));
  await mapLimited([...wanted.keys()], FETCHES_AT_ONCE, (path) => place(t, path, local.get(path)!));
  const vectors = new Map<string, Array<{ file_path: string; pos: bigint }>>();
  await mapLimited(groups.flatMap((g) => g.vectors), READS_AT_ONCE, async (v) => {
    if (vectors.has(vectorKey(v))) return;
    const blob = await t.readRange(v.file.file_path, Number(v.file.content_offset ?? 0), Number(v.file.content_size_in_bytes ?? 0));
    vectors.set(vectorKey(v), [...readDeletionVector(blob)].map((pos) => ({ file_path: v.file.referenced_data_file!, pos })));
  });

  const parts: TablePart[] = groups.map((g) => {
    const files: DataFileInput[] = g.files.map((f) => ({ localPath: local.get(f.file.file_path)!, filePath: f.file.file_path, sequenceNumber: f.sequenceNumber, firstRowId: f.firstRowId }));
    const equalityDeletes: EqualityDeleteInput[] = g.equality.map((e) => ({ localPath: local.get(e.file.file_path)!, equalityIds: e.file.equality_ids ?? [], sequenceNumber: e.sequenceNumber }));
    const rows = g.vectors.flatMap((v) => vectors.get(vectorKey(v)) ?? []);
    return { files, positionDeletes: { rows, localPaths: g.position.map((d) => local.get(d.file.file_path)!) }, equalityDeletes };
  });
  const bytes = [...wanted.values()].reduce((sum, f) => sum + Number(f.file.file_size_in_bytes), 0)
    + groups.flatMap((g) => g.vectors).reduce((sum, v) => sum + Number(v.file.content_size_in_bytes ?? 0), 0);
  return { view: { ...name, schema, parts }, snapshotId, files: wanted.size, bytes, skipped };
}

interface Group {
  files: LiveFile[];
  position: ScopedFile[];
  vectors: ScopedFile[];
  equality: ScopedFile[];
}

/**
 * The table's data files in parts with the deletes that apply to each: one
 * part per spec and partition (deletesForGroup's scoping), then every part
 * without equality deletes merged into one (position deletes and vectors
 * name their data files, so nothing crosses over).
 */
function partsOf(m: TableMetadata, data: LiveFile[], deletes: LiveFile[]): Group[] {
  if (!deletes.length) return [{ files: data, position: [], vectors: [], equality: [] }];
  const unpartitioned = new Set(partitionSpecsOf(m).filter((s) => s.fields.length === 0).map((s) => s['spec-id'] ?? 0));
  const bySpecAndPartition = new Map<string, LiveFile[]>();
  for (const f of data) {
    const key = `${f.specId}|${partitionKey(f.file.partition)}`;
    bySpecAndPartition.set(key, [...(bySpecAndPartition.get(key) ?? []), f]);
  }
  const merged: Group = { files: [], position: [], vectors: [], equality: [] };
  const own: Group[] = [];
  for (const files of bySpecAndPartition.values()) {
    const d = deletesForGroup(files, deletes, unpartitioned);
    // Equality deletes apply by sequence number, which the engine checks per file, and by partition, which it does not: a part of their own.
    if (d.equality.length) own.push({ files, position: d.position, vectors: d.vectors, equality: d.equality });
    else {
      merged.files.push(...files);
      merged.position.push(...d.position);
      merged.vectors.push(...d.vectors);
    }
  }
  merged.position = uniqueBy(merged.position, (p) => p.file.file_path);
  merged.vectors = uniqueBy(merged.vectors, vectorKey);
  return [...(merged.files.length ? [merged] : []), ...own];
}

/** A deletion vector: its Puffin file and the data file it names (one Puffin file holds several). */
const vectorKey = (v: ScopedFile) => `${v.file.file_path}#${v.file.referenced_data_file ?? ''}`;

function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((t) => !seen.has(key(t)) && seen.add(key(t)));
}
