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

/**
 * Storage credentials for one table's location (or a prefix within it), vended
 * (audited `credentials.vend` for an engine, coalesced per minute); `table` is
 * its dotted name. At the caller's access unless a narrower one is asked for
 * (a scan plan's files are only read).
 */
export async function vendedCredential(d: CatalogDeps, req: Request, wh: WarehouseRow, location: string, table: string, access: 'read' | 'write' = req.catalogCaller!.access) {
  const cred = await vendTableCredentials(d.storage, wh, location, access, { endpoint: d.config.s3Url, region: d.config.s3.region });
  auditEngineAct(d, req, { action: 'credentials.vend', table, coalesce: true, data: { access } });
  return cred;
}

/** The access mechanisms the caller named in X-Iceberg-Access-Delegation (a comma-separated list). */
const delegationAsked = (req: Request) => new Set((req.get('x-iceberg-access-delegation') ?? '').split(',').map((m) => m.trim()));

/**
 * How a caller reaches a table's files, from what it asked for and the
 * catalog's setting: vended credentials when asked for and the catalog hands
 * them out; remote signing when asked for, or when a signing-only catalog was
 * asked for credentials; none otherwise.
 */
export function storageAccess(req: Request, wh: WarehouseRow): 'vended' | 'signing' | null {
  const asked = delegationAsked(req);
  if (asked.has('vended-credentials') && !wh.signingOnly) return 'vended';
  if (asked.has('remote-signing') || (asked.has('vended-credentials') && wh.signingOnly)) return 'signing';
  return null;
}

/** Whether a plan or load answers with vended credentials. */
export const wantsVendedCredentials = (req: Request, wh: WarehouseRow) => storageAccess(req, wh) === 'vended';

/**
 * The config that points an engine at the signer (the REST document's
 * "Remote Signing"): with no signer properties, clients sign through the
 * table's own default endpoint, POST {catalog}/v1/{prefix}/namespaces/{ns}/tables/{t}/sign.
 */
export const signingConfig = (d: CatalogDeps): Record<string, string> => ({
  's3.remote-signing-enabled': 'true',
  's3.endpoint': d.config.s3Url,
  's3.path-style-access': 'true',
  's3.region': d.config.s3.region,
  'client.region': d.config.s3.region,
});

export async function sendLoadResult(d: CatalogDeps, req: Request, res: Response, wh: WarehouseRow, r: LoadResult, table: string): Promise<void> {
  const config: Record<string, string> = {};
  let credentials = '';
  const access = storageAccess(req, wh);
  if (access === 'vended') {
    const cred = await vendedCredential(d, req, wh, r.tableLocation, table);
    Object.assign(config, cred.config);
    credentials = `,"storage-credentials":${JSON.stringify([cred])}`;
  } else if (access === 'signing') Object.assign(config, signingConfig(d));
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
