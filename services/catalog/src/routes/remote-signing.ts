import type { Express } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { parseSignRequest, signableRequest, signedHeaders } from '../domain/remote-signing';
import { metadataTableLocation } from '../domain/table-load';
import { forbidden } from '../errors';
import { requirePrefixWithout404 } from '../guards';
import { namespaceOf, warehouseOf } from '../request';
import { findTable } from '@floe/catalog-store';

// POST …/tables/{table}/sign: signs one request to the store for an engine
// that holds no storage credential (domain/remote-signing.ts says which).
// The answer is for this request only: never cached by the client. The
// document declares no 404 here, so another warehouse and a table that does
// not exist are both 403, as for createNamespace.
export function mountRemoteSigning(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  route(app, '/v1/:prefix/namespaces/:namespace/tables/:table/sign', {
    post: [auth, requirePrefixWithout404, async (req, res) => {
      const ns = namespaceOf(req);
      const wh = warehouseOf(req);
      const t = await findTable(d.db, wh.id, ns, String(req.params.table));
      if (!t?.metadataLocation) throw forbidden(`There is no table ${[...ns, req.params.table].join('.')} to sign requests for`);
      const asked = parseSignRequest(req.body);
      const access = req.catalogCaller!.access;
      const url = signableRequest(asked, {
        storeUrl: d.config.s3Url, region: d.config.s3.region, tableBucket: wh.tableBucket,
        tableLocation: await metadataTableLocation(d, wh, t.metadataLocation!), access,
      });
      const headers = await signedHeaders(asked, url, d.config.s3.region, access === 'write' ? wh.rw : wh.ro);
      res.set('Cache-Control', 'no-cache').json({ uri: url.toString(), headers });
    }],
  });
}
