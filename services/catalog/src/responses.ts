import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import type { CatalogDeps } from './deps';
import type { WarehouseRow } from './store/warehouses';
import { vendTableCredentials } from './vended-credentials';
import { auditEngineAct } from './domain/engine-audit';

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

/** A storage session for the table's location at the caller's access: load results and the credentials route. */
/** Storage credentials for one table, vended (audited `credentials.vend` for an engine, coalesced per minute); `table` is its dotted name. */
export async function vendedCredential(d: CatalogDeps, req: Request, wh: WarehouseRow, tableLocation: string, table: string) {
  const cred = await vendTableCredentials(d.storage, wh, tableLocation, req.catalogCaller!.access, { endpoint: d.config.s3Url, region: d.config.s3.region });
  auditEngineAct(d, req, { action: 'credentials.vend', table, coalesce: true, data: { access: req.catalogCaller!.access } });
  return cred;
}

export async function sendLoadResult(d: CatalogDeps, req: Request, res: Response, wh: WarehouseRow, r: LoadResult, table: string): Promise<void> {
  const config: Record<string, string> = {};
  let credentials = '';
  if ((req.get('x-iceberg-access-delegation') ?? '').includes('vended-credentials')) {
    const cred = await vendedCredential(d, req, wh, r.tableLocation, table);
    Object.assign(config, cred.config);
    credentials = `,"storage-credentials":${JSON.stringify([cred])}`;
  }
  if (r.etag) res.set('ETag', r.etag);
  res.status(200).type('application/json')
    .send(`{"metadata-location":${JSON.stringify(r.metadataLocation)},"metadata":${r.metadataText},"config":${JSON.stringify(config)}${credentials}}`);
}

/** A weak validator of one metadata version: the location changes with every commit. */
export const etagOf = (metadataLocation: string) => `W/"${createHash('sha256').update(metadataLocation).digest('base64url').slice(0, 27)}"`;

/** If-None-Match (weak comparison): `*`, or a list of tags one of which is this version's. */
export function matchesNoneOf(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => opaque(tag) === opaque(etag));
}
