import type { Express, RequestHandler } from 'express';
import { route } from '@floe/http';
import { serializeTableMetadata } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import { badRequest, IcebergError, noSuchTable } from '../errors';
import { requirePrefix, requireWrite } from '../guards';
import { existingTable, namespaceOf, warehouseOf } from '../request';
import { readMetadata, readTableMetadata } from '../metadata-files';
import { etagOf, matchesNoneOf, sendLoadResult, vendedCredential } from '../responses';
import { dropWithPurge } from '../store/purges';
import { deleteTable } from '../store/tables';
import { listIdentifiers, renameHandler } from '../tabular';


// Spec: the table routes of the Iceberg REST catalog that need no metadata
// engine: list, exists, load, drop, rename, load credentials.

/** The table's location, read from its metadata text without a full parse. */
function locationOf(metadataText: string): string {
  const m = /"location"\s*:\s*"((?:[^"\\]|\\.)*)"/.exec(metadataText);
  if (!m) throw new IcebergError(500, 'InternalServerError', 'table metadata has no location');
  return JSON.parse(`"${m[1]}"`);
}

/** `writes`: the create and commit handlers (routes/commits.ts), which share these paths; the app hands them over. */
export function mountTables(app: Express, d: CatalogDeps, writes: Record<'create' | 'commit', RequestHandler[]>): void {
  const auth = d.auth.requireCaller();

  route(app, '/v1/:prefix/namespaces/:namespace/tables', {
    get: [auth, requirePrefix, listIdentifiers(d, 'table')],
    post: writes.create,
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table', {
    get: [auth, requirePrefix, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d.db, req, ns, String(req.params.table));
      const etag = etagOf(t.metadataLocation!);
      if (req.method === 'HEAD') return void res.status(204).end();
      if (matchesNoneOf(req.get('if-none-match'), etag)) return void res.status(304).set('ETag', etag).end();
      const wh = warehouseOf(req);
      const snapshotsMode = req.query.snapshots ?? 'all';
      if (snapshotsMode !== 'all' && snapshotsMode !== 'refs') throw badRequest('snapshots must be all or refs');
      let text = await readMetadata(d, wh, t.metadataLocation!);
      if (snapshotsMode === 'refs') {
        // Only the snapshots some branch or tag points at (history stays in snapshot-log).
        const meta = await readTableMetadata(d, wh, t.metadataLocation!);
        const referenced = new Set(Object.values(meta.refs ?? {}).map((r) => String(r['snapshot-id'])));
        text = serializeTableMetadata({ ...meta, snapshots: (meta.snapshots ?? []).filter((sn) => referenced.has(String(sn['snapshot-id']))) });
      }
      await sendLoadResult(d, req, res, wh, { metadataLocation: t.metadataLocation, metadataText: text, tableLocation: locationOf(text), etag });
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d.db, req, ns, String(req.params.table));
      let dropped: boolean;
      if (req.query.purgeRequested === 'true') {
        const wh = warehouseOf(req);
        const location = t.location ?? locationOf(await readMetadata(d, wh, t.metadataLocation!));
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
      const t = await existingTable(d.db, req, ns, String(req.params.table));
      const wh = warehouseOf(req);
      const text = await readMetadata(d, wh, t.metadataLocation!);
      const cred = await vendedCredential(d, req, wh, locationOf(text));
      res.json({ 'storage-credentials': [cred] });
    }],
  });

  route(app, '/v1/:prefix/tables/rename', {
    post: [auth, requirePrefix, requireWrite, renameHandler(d, 'table', noSuchTable)],
  });
}
