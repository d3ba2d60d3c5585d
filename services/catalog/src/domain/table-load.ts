import { serializeTableMetadata } from '@floe/iceberg';
import type { StoreCredentials } from '@floe/storage';
import { IcebergError } from '../errors';
import { readMetadata, readTableMetadata, type MetadataReadDeps } from '../metadata-files';

// What loading a table reads: its current metadata file as stored (cached,
// metadata-files.ts), and the table's location from that text. Loading is the
// catalog's hot path (bench/catalog): the stored text is answered as it is,
// never parsed, unless the caller asks for the referenced snapshots only.

/** The table's location, read from its metadata text without a full parse. */
export function tableLocationOf(metadataText: string): string {
  const m = /"location"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(metadataText);
  if (!m) throw new IcebergError(500, 'InternalServerError', 'table metadata has no location');
  return JSON.parse(`"${m[1]}"`);
}

/** The table's location as its current metadata file names it. */
export async function metadataTableLocation(d: MetadataReadDeps, wh: { rw: StoreCredentials }, metadataLocation: string): Promise<string> {
  return tableLocationOf(await readMetadata(d, wh, metadataLocation));
}

/**
 * The metadata text a load answers with: `all`, the file as stored; `refs`,
 * only the snapshots some branch or tag points at (history stays in snapshot-log).
 */
export function loadedMetadataText(d: MetadataReadDeps, wh: { rw: StoreCredentials }, metadataLocation: string, snapshots: 'all' | 'refs'): Promise<string> {
  return snapshots === 'refs' ? referencedSnapshotsOnly(d, wh, metadataLocation) : readMetadata(d, wh, metadataLocation);
}

async function referencedSnapshotsOnly(d: MetadataReadDeps, wh: { rw: StoreCredentials }, metadataLocation: string): Promise<string> {
  const meta = await readTableMetadata(d, wh, metadataLocation);
  const referenced = new Set(Object.values(meta.refs ?? {}).map((r) => String(r['snapshot-id'])));
  return serializeTableMetadata({ ...meta, snapshots: (meta.snapshots ?? []).filter((sn) => referenced.has(String(sn['snapshot-id']))) });
}
