import type { CatalogDeps } from './deps';
import { badRequest } from './errors';
import { tableBucketRoot } from './locations';
import { readMetadata } from './metadata-files';
import type { WarehouseRow } from './store/warehouses';

// Registering a table or view adopts a metadata file that already sits in the
// warehouse's table bucket: the file is read as the warehouse's own identity,
// and only from inside that bucket.

/** A metadata file to register: it must lie in the warehouse's table bucket and be readable. */
export async function readForRegistration(d: CatalogDeps, wh: WarehouseRow, location: string): Promise<string> {
  const root = tableBucketRoot(wh.tableBucket);
  if (!location.startsWith(root) || location.includes('..')) throw badRequest(`metadata-location must be under ${root}`);
  try {
    return await readMetadata(d, wh, location);
  } catch {
    throw badRequest(`Cannot read metadata at ${location}`);
  }
}
