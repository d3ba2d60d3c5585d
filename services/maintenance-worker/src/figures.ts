import { tableFigures } from '@floe/iceberg';
import type { RunFigures } from './store/runs';
import type { TableAccess } from '@floe/catalog-client';

// A table's figures before and after a run (packages/iceberg maintenance/figures.ts), as a run records them.

export async function figuresOf(t: Pick<TableAccess, 'metadata' | 'read'>): Promise<RunFigures> {
  const f = await tableFigures(t.metadata, t.read);
  return { snapshots: f.snapshots, manifests: f.manifests, data_files: f.dataFiles, data_bytes: f.dataBytes, metadata_files: f.metadataFiles };
}
