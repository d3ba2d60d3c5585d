import type { Express } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { IcebergError } from '../errors';
import { tableBucketRoot } from '../locations';

/** What this catalog implements, as the `endpoints` list of GET /v1/config. */
export const IMPLEMENTED_ENDPOINTS = [
  'GET /v1/{prefix}/namespaces',
  'POST /v1/{prefix}/namespaces',
  'GET /v1/{prefix}/namespaces/{namespace}',
  'HEAD /v1/{prefix}/namespaces/{namespace}',
  'DELETE /v1/{prefix}/namespaces/{namespace}',
  'POST /v1/{prefix}/namespaces/{namespace}/properties',
  'GET /v1/{prefix}/namespaces/{namespace}/tables',
  'POST /v1/{prefix}/namespaces/{namespace}/tables',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'POST /v1/{prefix}/transactions/commit',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/tables/{table}',
  'GET /v1/{prefix}/namespaces/{namespace}/tables/{table}/credentials',
  'POST /v1/{prefix}/tables/rename',
  'POST /v1/{prefix}/namespaces/{namespace}/register',
  'POST /v1/{prefix}/namespaces/{namespace}/tables/{table}/metrics',
  'GET /v1/{prefix}/namespaces/{namespace}/views',
  'POST /v1/{prefix}/namespaces/{namespace}/views',
  'GET /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'HEAD /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'POST /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'DELETE /v1/{prefix}/namespaces/{namespace}/views/{view}',
  'POST /v1/{prefix}/views/rename',
  'POST /v1/{prefix}/namespaces/{namespace}/register-view',
];

// GET /v1/config?warehouse=<id or name>: the prefix that selects the
// warehouse, and the settings an engine needs to reach its bucket.
export function mountConfig(app: Express, d: CatalogDeps): void {
  route(app, '/v1/config', {
    get: [d.auth.requireCaller(), async (req, res) => {
      const caller = req.catalogCaller!;
      const wh = caller.warehouse;
      const asked = typeof req.query.warehouse === 'string' ? req.query.warehouse : null;
      // A token is bound to one warehouse; naming another never reveals whether it exists.
      if ((asked !== null && asked !== wh.id && asked !== wh.name)) {
        throw new IcebergError(404, 'NoSuchWarehouseException', `Warehouse ${asked ?? caller.warehouseId} not found for this credential`);
      }
      res.json({
        defaults: {
          's3.endpoint': d.config.s3Url,
          's3.path-style-access': 'true',
          's3.region': d.config.s3.region,
          'client.region': d.config.s3.region,
        },
        overrides: { prefix: wh.id, warehouse: tableBucketRoot(wh.tableBucket) },
        endpoints: IMPLEMENTED_ENDPOINTS,
      });
    }],
  });
}
