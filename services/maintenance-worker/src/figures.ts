import { ManifestContent, currentSnapshot, readManifestList, type ManifestFile } from '@floe/iceberg';
import type { RunFigures } from './store/runs';
import type { TableAccess } from './table-access';

// A table's figures before and after a run, as cheaply as they can be had:
// snapshots and metadata files from the metadata itself, manifests from the
// current snapshot's manifest list (one read), data files and bytes from the
// current snapshot's summary (Iceberg's `total-data-files`, `total-files-size`)
// where its writer kept them, else the files from the manifest list's counts.

export async function figuresOf(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<RunFigures> {
  const m = t.metadata;
  const current = currentSnapshot(m);
  let list: ManifestFile[] | null = null;
  if (current?.['manifest-list']) list = await t.read(current['manifest-list']).then((b) => readManifestList(b).manifests, () => null);
  const summary = current?.summary ?? {};
  const num = (k: string) => (summary[k] !== undefined && /^\d+$/.test(summary[k]) ? Number(summary[k]) : null);
  return {
    snapshots: m.snapshots?.length ?? 0,
    manifests: list?.length ?? null,
    data_files: current ? num('total-data-files') ?? (list ? dataFilesListed(list) : null) : 0,
    data_bytes: current ? num('total-files-size') : 0,
    metadata_files: (m['metadata-log']?.length ?? 0) + 1,
  };
}

/** Live data files by the manifest list's counts; null when a writer left a count out. */
function dataFilesListed(list: ManifestFile[]): number | null {
  let n = 0;
  for (const m of list) {
    if (m.content !== ManifestContent.DATA) continue;
    if (m.added_files_count === null || m.existing_files_count === null) return null;
    n += m.added_files_count + m.existing_files_count;
  }
  return n;
}
