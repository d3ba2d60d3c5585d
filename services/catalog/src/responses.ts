import type { Request, Response } from 'express';
import type { CatalogDeps } from './deps';
import type { WarehouseRow } from './store/warehouses';
import { vendTableCredentials } from './vended-credentials';

// LoadTableResult, the answer of create, stage-create, load and register:
// the stored metadata text spliced in as it is (64-bit ids stay exact and
// nothing is re-serialised), with a storage session for the table's location
// when the caller asks for vended credentials.

export interface LoadResult {
  /** Null for a staged create (nothing stored yet). */
  metadataLocation: string | null;
  metadataText: string;
  tableLocation: string;
  etag?: string;
}

export async function sendLoadResult(d: CatalogDeps, req: Request, res: Response, wh: WarehouseRow, r: LoadResult): Promise<void> {
  const config: Record<string, string> = {};
  let credentials = '';
  if ((req.get('x-iceberg-access-delegation') ?? '').includes('vended-credentials')) {
    const cred = await vendTableCredentials(d.storage, wh, r.tableLocation, req.catalogCaller!.access, { endpoint: d.config.s3Url, region: d.config.s3.region });
    Object.assign(config, cred.config);
    credentials = `,"storage-credentials":${JSON.stringify([cred])}`;
  }
  if (r.etag) res.set('ETag', r.etag);
  res.status(200).type('application/json')
    .send(`{"metadata-location":${JSON.stringify(r.metadataLocation)},"metadata":${r.metadataText},"config":${JSON.stringify(config)}${credentials}}`);
}
