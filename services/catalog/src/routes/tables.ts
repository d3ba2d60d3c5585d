import type { Express, RequestHandler } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { dropTable } from '../domain/table-drop';
import { loadedMetadataText, metadataTableLocation, tableLocationOf } from '../domain/table-load';
import { badRequest, forbidden, noSuchTable } from '../errors';
import { requirePrefix, requireWrite } from '../guards';
import { existingTable, namespaceOf, warehouseOf } from '../request';
import { etagOf, matchesNoneOf, sendLoadResult, vendedCredential } from '../responses';
import { listIdentifiers, renameHandler } from '../tabular';
import { auditEngineAct, tableName } from '../domain/engine-audit';


// Spec: the table routes of the Iceberg REST catalog that need no metadata
// engine: list, exists, load, drop, rename, load credentials.

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
      const text = await loadedMetadataText(d, wh, t.metadataLocation!, snapshotsMode);
      await sendLoadResult(d, req, res, wh, { metadataLocation: t.metadataLocation, metadataText: text, tableLocation: tableLocationOf(text), etag }, tableName(ns, String(req.params.table)));
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d.db, req, ns, String(req.params.table));
      const purge = req.query.purgeRequested === 'true';
      await dropTable(d, warehouseOf(req), ns, t, purge ? { requestedBy: req.catalogCaller!.clientId } : null);
      res.status(204).end();
      auditEngineAct(d, req, { action: 'table.delete', table: tableName(ns, String(req.params.table)), data: { purge_requested: purge } });
    }],
    post: writes.commit,
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/credentials', {
    get: [auth, requirePrefix, async (req, res) => {
      const ns = namespaceOf(req);
      const t = await existingTable(d.db, req, ns, String(req.params.table));
      const wh = warehouseOf(req);
      if (wh.signingOnly) throw forbidden('This catalog hands out no storage credentials (storage_access signing_only): load the table with X-Iceberg-Access-Delegation: remote-signing and have each request signed');
      const cred = await vendedCredential(d, req, wh, await metadataTableLocation(d, wh, t.metadataLocation!), tableName(ns, String(req.params.table)));
      res.json({ 'storage-credentials': [cred] });
    }],
  });

  route(app, '/v1/:prefix/tables/rename', {
    post: [auth, requirePrefix, requireWrite, renameHandler(d, 'table', noSuchTable)],
  });
}
