// Which files each snapshot reaches, and which of them only expired snapshots reached:
// what snapshot expiry may delete once its commit has landed. The only I/O is the
// injected `read` of manifest lists and manifests; each manifest is read once however
// many snapshots list it.
//
// A snapshot reaches its manifest list, every manifest the list names, the data and
// delete files those manifests hold as ADDED or EXISTING, and its statistics files. A
// DELETED entry records that the snapshot removed the file; it does not make the file
// live there (spec "Manifest Entry Fields": deletes are informational, not scanned), so
// a file lives exactly as long as some snapshot holds it live, as in the Java reference's
// reachable-file cleanup.
// Invariant: `unreachableFiles` never names a path any retained snapshot reaches.

import { EntryStatus, FileContent, readManifest } from '../files/manifest';
import { readManifestList } from '../files/manifest-list';
import { READS_AT_ONCE, mapLimited } from '../files/map-limited';
import type { ReadFile } from '../files/row-count';
import type { Snapshot, TableMetadata } from '../metadata/model';

export interface FileRef {
  path: string;
  bytes: number;
}

export interface CollectedManifest extends FileRef {
  content: 'data' | 'deletes';
  specId: number;
  /** Live (ADDED or EXISTING) entries only. */
  dataFiles: FileRef[];
  deleteFiles: FileRef[];
}

export interface SnapshotFiles {
  snapshotId: bigint;
  /** null for a v1 snapshot that lists its manifests inline. */
  manifestList: FileRef | null;
  /** Shared objects: a manifest several snapshots list is one CollectedManifest. */
  manifests: CollectedManifest[];
  /** Statistics and partition statistics files of this snapshot, from table metadata. */
  statisticsFiles: FileRef[];
}

export interface CollectOptions {
  /** The metadata the snapshots come from (before an expiry commit drops their statistics). */
  metadata?: Pick<TableMetadata, 'statistics' | 'partition-statistics'>;
  /** Manifest and manifest-list reads in flight at once; default READS_AT_ONCE (16). */
  concurrency?: number;
}

export async function collectSnapshotFiles(
  snapshots: readonly Snapshot[],
  read: ReadFile,
  opts: CollectOptions = {},
): Promise<SnapshotFiles[]> {
  const limit = opts.concurrency ?? READS_AT_ONCE;
  // Every manifest list first, then every manifest once however many lists name it: both at `limit` reads at once.
  const lists = await mapLimited(snapshots, limit, async (s) => {
    const listPath = s['manifest-list'];
    if (!listPath) return { manifestList: null, paths: s.manifests ?? [] };
    const bytes = await read(listPath);
    return { manifestList: { path: listPath, bytes: bytes.length }, paths: readManifestList(bytes).manifests.map((m) => m.manifest_path) };
  });
  const unique = [...new Set(lists.flatMap((l) => l.paths))];
  const collected = await mapLimited(unique, limit, async (path) => collectManifest(path, await read(path)));
  const byPath = new Map(unique.map((p, i) => [p, collected[i]]));
  return snapshots.map((s, i) => ({
    snapshotId: s['snapshot-id'],
    manifestList: lists[i].manifestList,
    manifests: lists[i].paths.map((p) => byPath.get(p)!),
    statisticsFiles: statisticsOf(s['snapshot-id'], opts.metadata),
  }));
}

function collectManifest(path: string, bytes: Uint8Array): CollectedManifest {
  const m = readManifest(bytes);
  const dataFiles: FileRef[] = [];
  const deleteFiles: FileRef[] = [];
  for (const e of m.entries) {
    if (e.status === EntryStatus.DELETED) continue;
    const ref = { path: e.data_file.file_path, bytes: Number(e.data_file.file_size_in_bytes) };
    (e.data_file.content === FileContent.DATA ? dataFiles : deleteFiles).push(ref);
  }
  return { path, bytes: bytes.length, content: m.content, specId: m.spec['spec-id'] ?? 0, dataFiles, deleteFiles };
}

function statisticsOf(id: bigint, meta: CollectOptions['metadata']): FileRef[] {
  return [...(meta?.statistics ?? []), ...(meta?.['partition-statistics'] ?? [])]
    .filter((f) => f['snapshot-id'] === id)
    .map((f) => ({ path: f['statistics-path'], bytes: Number(f['file-size-in-bytes']) }));
}

/** Every path one snapshot reaches. */
export function snapshotPaths(s: SnapshotFiles): string[] {
  const paths = s.statisticsFiles.map((f) => f.path);
  if (s.manifestList) paths.push(s.manifestList.path);
  for (const m of s.manifests) {
    paths.push(m.path);
    for (const f of m.dataFiles) paths.push(f.path);
    for (const f of m.deleteFiles) paths.push(f.path);
  }
  return paths;
}

export interface UnreachableFiles {
  dataFiles: FileRef[];
  deleteFiles: FileRef[];
  manifests: FileRef[];
  manifestLists: FileRef[];
  statisticsFiles: FileRef[];
  /** All of the above, contents before the metadata that named them (the Java order). */
  paths: string[];
  bytes: number;
}

/**
 * Files reachable from `expired` and from no snapshot in `retained`. `retained` must be
 * every snapshot the table still has after the expiry commit, including any committed
 * concurrently, i.e. the snapshots of the metadata that commit returned.
 */
export function unreachableFiles(expired: readonly SnapshotFiles[], retained: readonly SnapshotFiles[]): UnreachableFiles {
  const live = new Set<string>();
  for (const s of retained) for (const p of snapshotPaths(s)) live.add(p);
  const out: Omit<UnreachableFiles, 'paths' | 'bytes'> = {
    dataFiles: [], deleteFiles: [], manifests: [], manifestLists: [], statisticsFiles: [],
  };
  const take = (into: FileRef[], f: FileRef) => {
    if (live.has(f.path)) return;
    live.add(f.path); // once each, however many expired snapshots reach it
    into.push(f);
  };
  for (const s of expired) {
    if (s.manifestList) take(out.manifestLists, s.manifestList);
    for (const f of s.statisticsFiles) take(out.statisticsFiles, f);
    for (const m of s.manifests) {
      if (live.has(m.path)) continue; // a kept or already taken manifest: its files are settled
      take(out.manifests, m);
      for (const f of m.dataFiles) take(out.dataFiles, f);
      for (const f of m.deleteFiles) take(out.deleteFiles, f);
    }
  }
  const ordered = [...out.dataFiles, ...out.deleteFiles, ...out.manifests, ...out.manifestLists, ...out.statisticsFiles];
  return { ...out, paths: ordered.map((f) => f.path), bytes: ordered.reduce((n, f) => n + f.bytes, 0) };
}
