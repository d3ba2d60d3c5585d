// A table's figures as maintenance reports them — a run's before and after,
// GET /v1/table/maintenance's health — as cheaply as they can be had:
// snapshots and metadata files from the metadata itself, manifests from the
// current snapshot's manifest list (one read), data files and bytes from its
// summary (`total-data-files`, `total-files-size`) where its writer kept
// them, else the files from the manifest list's counts.
import { listTotals } from '../files/append';
import { readManifestList, type ManifestFile } from '../files/manifest-list';
import type { ReadFile } from '../files/row-count';
import { currentSnapshot } from '../metadata/helpers';
import type { TableMetadata } from '../metadata/model';

export interface TableFigures {
  snapshots: number;
  /** null when the manifest list could not be read. */
  manifests: number | null;
  /** null when neither the summary nor the manifest list's counts say. */
  dataFiles: number | null;
  dataBytes: number | null;
  /** The current metadata file and those its log names. */
  metadataFiles: number;
}

export async function tableFigures(m: TableMetadata, read: ReadFile): Promise<TableFigures> {
  const current = currentSnapshot(m);
  let list: ManifestFile[] | null = null;
  if (current?.['manifest-list']) list = await read(current['manifest-list']).then((b) => readManifestList(b).manifests, () => null);
  const summary = current?.summary ?? {};
  const num = (k: string) => (summary[k] !== undefined && /^\d+$/.test(summary[k]) ? Number(summary[k]) : null);
  const listed = list ? listTotals(list) : undefined;
  return {
    snapshots: m.snapshots?.length ?? 0,
    manifests: current ? list?.length ?? null : 0,
    dataFiles: current ? num('total-data-files') ?? (listed ? Number(listed.dataFiles) : null) : 0,
    dataBytes: current ? num('total-files-size') : 0,
    metadataFiles: (m['metadata-log']?.length ?? 0) + 1,
  };
}
