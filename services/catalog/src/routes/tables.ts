import { createHash } from 'node:crypto';
import type { Express, Request, RequestHandler } from 'express';
import { route } from '@floe/http';
import { serializeTableMetadata } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import { alreadyExists, badRequest, IcebergError, noSuchNamespace, noSuchTable } from '../errors';
import { sendLoadResult } from '../responses';
import { getNamespace, splitNamespace } from '../store/namespaces';
import { dropWithPurge } from '../store/purges';
import { deleteTable, findTable, listTables, nameTaken, renameTable, type TableRow } from '../store/tables';
import type { WarehouseRow } from '../store/warehouses';
import { vendTableCredentials } from '../vended-credentials';
import { pageOf, pageParams } from './paging';
import { requirePrefix, requireWrite } from './prefix';
import { mountCommits } from './commits';


// Spec: the table routes of the Iceberg REST catalog that need no metadata
// engine: list, exists, load, drop, rename, load credentials.

export function namespaceOf(req: Request): string[] {
  const levels = splitNamespace(String(req.params.namespace));
  if (levels.some((l) => l.length === 0)) throw badRequest('Invalid namespace: empty level');
  return levels;
}

/** The caller's warehouse, as resolved (and cached) with its credential's standing. */
export async function warehouseOf(_d: CatalogDeps, req: Request): Promise<WarehouseRow> {
  return req.catalogCaller!.warehouse;
}

/**
 * The table, or NoSuchTableException — also when its namespace does not
 * exist, as the reference server answers: the Java client relies on it
 * (metadata tables like db.t.files, time-travel selectors, dropTable → false).
 */
export async function existingTable(d: CatalogDeps, req: Request, ns: string[], name: string): Promise<TableRow> {
  const t = await findTable(d.db, req.catalogCaller!.warehouseId, ns, name);
  if (!t || !t.metadataLocation) throw noSuchTable(ns, name);
  return t;
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

/** The table's location, read from its metadata text without a full parse. */
function locationOf(metadataText: string): string {
  const m = /"location"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(metadataText);
  if (!m) throw new IcebergError(500, 'InternalServerError', 'table metadata has no location');
  return JSON.parse(`"${m[1]}"`);
}

/** GET …/tables and GET …/views: the identifiers of one kind in a namespace, paged. */
export function listIdentifiers(d: CatalogDeps, kind: 'table' | 'view'): RequestHandler {
  return async (req, res) => {
    const ns = namespaceOf(req);
    if (!(await getNamespace(d.db, req.catalogCaller!.warehouseId, ns))) throw noSuchNamespace(ns);
    const { after, pageSize } = pageParams(req);
    const { page, next } = pageOf(await listTables(d.db, req.catalogCaller!.warehouseId, ns, kind, after, pageSize + 1), pageSize, (n) => n);
    const body: Record<string, unknown> = { identifiers: page.map((name) => ({ namespace: ns, name })) };
    if (next) body['next-page-token'] = next;
    res.json(body);
  };
}

/** POST …/tables/rename and POST …/views/rename: move one table or view to another identifier. */
export function renameHandler(d: CatalogDeps, kind: 'table' | 'view', missing: (ns: string[], name: string) => IcebergError): RequestHandler {
  const noun = kind === 'table' ? 'Table' : 'View or table';
  return async (req, res) => {
    const body = req.body as { source?: { namespace?: string[]; name?: string }; destination?: { namespace?: string[]; name?: string } };
    const src = body?.source;
    const dst = body?.destination;
    if (!src?.namespace || !src.name || !dst?.namespace || !dst.name) throw badRequest('source and destination identifiers are required');
    const wh = req.catalogCaller!.warehouseId;
    const found = await findTable(d.db, wh, src.namespace, src.name, kind);
    if (!found) throw missing(src.namespace, src.name);
    if (!(await getNamespace(d.db, wh, dst.namespace))) throw noSuchNamespace(dst.namespace);
    if ((await nameTaken(d.db, wh, dst.namespace, dst.name)) || !(await renameTable(d.db, found.id, dst.namespace, dst.name))) {
      throw alreadyExists(`${noun} ${[...dst.namespace, dst.name].join('.')}`);
    }
    res.status(204).end();
  };
}

export function mountTables(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();
  const writes = mountCommits(app, d);

  route(app, '/v1/:prefix/namespaces/:namespace/tables', {
    get: [auth, requirePrefix, listIdentifiers(d, 'table')],
    post: writes.create,
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table', {
    get: [auth, requirePrefix, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d, req, ns, String(req.params.table));
      const etag = etagOf(t.metadataLocation!);
      if (req.method === 'HEAD') return void res.status(204).end();
      if (matchesNoneOf(req.get('if-none-match'), etag)) return void res.status(304).set('ETag', etag).end();
      const wh = await warehouseOf(d, req);
      const s3 = d.storage.objectsAs(wh.rw);
      const snapshotsMode = req.query.snapshots ?? 'all';
      if (snapshotsMode !== 'all' && snapshotsMode !== 'refs') throw badRequest('snapshots must be all or refs');
      let text = await d.metadata.read(s3, t.metadataLocation!);
      if (snapshotsMode === 'refs') {
        // Only the snapshots some branch or tag points at (history stays in snapshot-log).
        const meta = await d.metadata.readParsed(s3, t.metadataLocation!);
        const referenced = new Set(Object.values(meta.refs ?? {}).map((r) => String(r['snapshot-id'])));
        text = serializeTableMetadata({ ...meta, snapshots: (meta.snapshots ?? []).filter((sn) => referenced.has(String(sn['snapshot-id']))) });
      }
      await sendLoadResult(d, req, res, wh, { metadataLocation: t.metadataLocation, metadataText: text, tableLocation: locationOf(text), etag });
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d, req, ns, String(req.params.table));
      let dropped: boolean;
      if (req.query.purgeRequested === 'true') {
        const wh = await warehouseOf(d, req);
        const location = t.location ?? locationOf(await d.metadata.read(d.storage.objectsAs(wh.rw), t.metadataLocation!));
        dropped = await dropWithPurge(d.db, { id: t.id, warehouseId: wh.id, location, tableIdent: [...ns, t.name].join('.'), requestedBy: req.catalogCaller!.clientId });
      } else {
        dropped = await deleteTable(d.db, t.id);
      }
      // Concurrent drops of one table: one removes the row, the others find it gone.
      if (!dropped) throw noSuchTable(ns, t.name);
      res.status(204).end();
    }],
    post: writes.commit,
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/credentials', {
    get: [auth, requirePrefix, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d, req, ns, String(req.params.table));
      const wh = await warehouseOf(d, req);
      const text = await d.metadata.read(d.storage.objectsAs(wh.rw), t.metadataLocation!);
      const cred = await vendTableCredentials(d.storage, wh, locationOf(text), req.catalogCaller!.access, { endpoint: d.config.s3Url, region: d.config.s3.region });
      res.json({ 'storage-credentials': [cred] });
    }],
  });

  route(app, '/v1/:prefix/tables/rename', {
    post: [auth, requirePrefix, requireWrite, renameHandler(d, 'table', noSuchTable)],
  });
}
