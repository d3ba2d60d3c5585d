import type { Express } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { requireNamespace } from '../domain/namespaces';
import { registerTable } from '../domain/table-register';
import { unregisterTable } from '../domain/table-drop';
import { badRequest } from '../errors';
import { readForRegistration } from '../registration';
import { sendLoadResult } from '../responses';
import { requirePrefix, requireWrite } from '../guards';
import { existingTable, namespaceOf, warehouseOf } from '../request';
import { auditEngineAct, tableName } from '../domain/engine-audit';

// POST …/register adopts a table whose metadata file already sits in the
// warehouse's table bucket, and POST …/unregister lets one go with its files
// left in place (for another catalog to register); POST …/metrics accepts an engine's scan/commit
// report and logs it (Floe keeps no metrics store of its own yet).
export function mountRegisterAndMetrics(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  route(app, '/v1/:prefix/namespaces/:namespace/register', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      // validate
      const ns = namespaceOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      const location = body['metadata-location'];
      if (typeof name !== 'string' || !name) throw badRequest('Invalid request: name is required');
      if (typeof location !== 'string' || !location) throw badRequest('Invalid request: metadata-location is required');
      // A JSON boolean: "true" as a string would have read as false and refused a replacement that was asked for.
      if (body.overwrite !== undefined && typeof body.overwrite !== 'boolean') throw badRequest('Invalid request: overwrite must be a boolean');
      // resolve: the namespace, then the file (read as the warehouse's own identity)
      const wh = warehouseOf(req);
      await requireNamespace(d.db, wh.id, ns);
      const text = await readForRegistration(d, wh, location);
      // act
      const tableLocation = await registerTable(d.db, wh, ns, { name, metadataLocation: location, metadataText: text, overwrite: body.overwrite === true });
      await sendLoadResult(d, req, res, wh, { metadataLocation: location, metadataText: text, tableLocation }, tableName(ns, name));
      auditEngineAct(d, req, { action: 'table.create', table: tableName(ns, name), data: { metadata_location: location, registered: true, overwrite: body.overwrite === true } });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/unregister', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const name = String(req.params.table);
      const gone = await unregisterTable(d, warehouseOf(req), ns, name);
      res.status(200).type('application/json')
        .send(`{"metadata-location":${JSON.stringify(gone.metadataLocation)},"metadata":${gone.metadataText}}`);
      auditEngineAct(d, req, { action: 'table.delete', table: tableName(ns, name), data: { metadata_location: gone.metadataLocation, unregistered: true } });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/metrics', {
    post: [auth, requirePrefix, async (req, res) => {
      const ns = namespaceOf(req);
      await existingTable(d.db, req, ns, String(req.params.table));
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (typeof body['report-type'] !== 'string') throw badRequest('Invalid request: report-type is required');
      d.logger.info('table metrics report', {
        request_id: req.requestId, warehouse_id: req.catalogCaller!.warehouseId, table: [...ns, req.params.table].join('.'),
        report_type: body['report-type'], snapshot_id: String(body['snapshot-id'] ?? ''),
      });
      res.status(204).end();
    }],
  });
}
