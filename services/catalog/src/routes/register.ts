import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { MetadataParseError, parseTableMetadata, type TableMetadata } from '@floe/iceberg';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { placePointer } from '../commit';
import { alreadyExists, badRequest, noSuchNamespace } from '../errors';
import { checkedLocation, checkWritePaths, isWithin } from '../locations';
import { readForRegistration } from '../registration';
import { sendLoadResult } from '../responses';
import { getNamespace } from '../store/namespaces';
import { findTable } from '../store/tables';
import { requirePrefix, requireWrite } from '../guards';
import { existingTable, namespaceOf, warehouseOf } from '../request';

/**
 * The registered table's own location, held to the catalog's rules; its
 * metadata file must lie within it, so the table owns every file it names.
 */
function registeredLocation(meta: TableMetadata, metadataLocation: string, bucket: string): string {
  const location = checkedLocation(meta.location, bucket, 'Table location');
  checkWritePaths(meta.properties, location, bucket);
  if (!isWithin(metadataLocation, location)) throw badRequest(`metadata-location ${metadataLocation} must lie within the table's location ${location}`);
  return location;
}

// POST …/register adopts a table whose metadata file already sits in the
// warehouse's table bucket; POST …/metrics accepts an engine's scan/commit
// report and logs it (Floe keeps no metrics store of its own yet).
export function mountRegisterAndMetrics(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  route(app, '/v1/:prefix/namespaces/:namespace/register', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      const location = body['metadata-location'];
      if (typeof name !== 'string' || !name) throw badRequest('Invalid request: name is required');
      if (typeof location !== 'string' || !location) throw badRequest('Invalid request: metadata-location is required');
      // A JSON boolean: "true" as a string would have read as false and refused a replacement that was asked for.
      if (body.overwrite !== undefined && typeof body.overwrite !== 'boolean') throw badRequest('Invalid request: overwrite must be a boolean');
      const wh = warehouseOf(req);
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      const text = await readForRegistration(d, wh, location);
      let meta: TableMetadata;
      try {
        meta = parseTableMetadata(text);
      } catch (err) {
        if (err instanceof MetadataParseError) throw badRequest(`Not valid table metadata: ${err.message}`);
        throw err;
      }
      const tableLocation = registeredLocation(meta, location, wh.tableBucket);
      const existing = await findTable(d.db, wh.id, ns, name);
      if (existing && body.overwrite !== true) throw alreadyExists(`Table ${[...ns, name].join('.')}`);
      await placePointer(d.db, wh.id, {
        id: existing?.id ?? randomUUID(), expectedVersion: existing?.version ?? null, namespace: ns, name, kind: 'table',
        metadataLocation: location, location: tableLocation, relocated: existing?.location !== tableLocation,
      }, 'Table');
      await sendLoadResult(d, req, res, wh, { metadataLocation: location, metadataText: text, tableLocation });
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
