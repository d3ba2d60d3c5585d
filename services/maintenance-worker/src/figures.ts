import { currentSnapshot, readManifestList } from '@floe/iceberg';
import type { RunFigures } from './store/runs';
import type { TableAccess } from './table-access';

// A table's figures before and after a run, as cheaply as they can be had:
// snapshots and metadata files from the metadata itself, manifests from the
// current snapshot's manifest list (one read), data files and bytes from the
// current snapshot's summary (Iceberg's `total-data-files`, `total-files-size`)
// where its writer kept them.

export async function figuresOf(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<RunFigures> {
  const m = t.metadata;
  const current = currentSnapshot(m);
  let manifests: number | null = null;
  if (current?.['manifest-list']) {
    manifests = await t.read(current['manifest-list']).then((b) => readManifestList(b).manifests.length, () => null);
  }
  const summary = current?.summary ?? {};
  const num = (k: string) => (summary[k] !== undefined && /^\d+$/.test(summary[k]) ? Number(summary[k]) : null);
  return {
    snapshots: m.snapshots?.length ?? 0,
    manifests,
    data_files: current ? num('total-data-files') : 0,
    data_bytes: current ? num('total-files-size') : 0,
    metadata_files: (m['metadata-log']?.length ?? 0) + 1,
  };
}
