import type { Express } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { IcebergError } from '../errors';
import { tableBucketRoot } from '../locations';
import { servedEndpoints } from '../route-table';

// GET /v1/config?warehouse=<id or name>: the prefix that selects the
// warehouse, and the settings an engine needs to reach its bucket.
export function mountConfig(app: Express, d: CatalogDeps): void {
  // Read once, at the first request, when every route is mounted.
  let endpoints: string[] | null = null;
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
        // A signing-only catalog (storage_access) tells engines up front that every request to the store is signed.
        overrides: { prefix: wh.id, warehouse: tableBucketRoot(wh.tableBucket), ...(wh.signingOnly ? { 's3.remote-signing-enabled': 'true' } : {}) },
        endpoints: (endpoints ??= servedEndpoints(app)),
      });
    }],
  });
}
