import type { Express, Response } from 'express';
import { parseCreateViewRequest, parseViewRequirements, parseViewUpdates } from '@floe/iceberg';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { requireNamespace } from '../domain/namespaces';
import { asBadRequest, createView, dropView, existingView, noSuchView, registerView, replaceView, viewMetadataText } from '../domain/views';
import { badRequest } from '../errors';
import { requirePrefix, requireWrite } from '../guards';
import { readForRegistration } from '../registration';
import { namespaceOf, warehouseOf } from '../request';
import { listIdentifiers, renameHandler } from '../tabular';

// Spec: the view routes of the Iceberg REST catalog. Views share the tables'
// pointer store (kind = 'view') and their name space within a namespace.

function sendView(res: Response, location: string, text: string): void {
  res.status(200).type('application/json').send(`{"metadata-location":${JSON.stringify(location)},"metadata":${text},"config":{}}`);
}

export function mountViews(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  route(app, '/v1/:prefix/namespaces/:namespace/views', {
    get: [auth, requirePrefix, listIdentifiers(d, 'view')],
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const body = asBadRequest(() => parseCreateViewRequest(req.body ?? {}));
      const created = await createView(d, warehouseOf(req), ns, body);
      sendView(res, created.metadataLocation, created.metadataText);
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/views/:view', {
    get: [auth, requirePrefix, async (req, res) => {
      const v = await existingView(d.db, req.catalogCaller!.warehouseId, namespaceOf(req), String(req.params.view));
      if (req.method === 'HEAD') return void res.status(204).end();
      sendView(res, v.metadataLocation!, await viewMetadataText(d, warehouseOf(req), v));
    }],
    // Replace: requirements and updates, new metadata file, compare-and-set.
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const v = await existingView(d.db, req.catalogCaller!.warehouseId, ns, String(req.params.view));
      const body = (req.body ?? {}) as Record<string, unknown>;
      const requirements = asBadRequest(() => parseViewRequirements(body.requirements ?? []));
      const updates = asBadRequest(() => parseViewUpdates(body.updates ?? []));
      const replaced = await replaceView(d, warehouseOf(req), ns, v, { requirements, updates });
      sendView(res, replaced.metadataLocation, replaced.metadataText);
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const v = await existingView(d.db, req.catalogCaller!.warehouseId, ns, String(req.params.view));
      await dropView(d.db, ns, v);
      res.status(204).end();
    }],
  });

  route(app, '/v1/:prefix/views/rename', {
    post: [auth, requirePrefix, requireWrite, renameHandler(d, 'view', noSuchView)],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/register-view', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      // validate
      const ns = namespaceOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      const location = body['metadata-location'];
      if (typeof name !== 'string' || !name || typeof location !== 'string' || !location) throw badRequest('Invalid request: name and metadata-location are required');
      // resolve: the namespace, then the file (read as the warehouse's own identity)
      const wh = warehouseOf(req);
      await requireNamespace(d.db, wh.id, ns);
      const text = await readForRegistration(d, wh, location);
      // act
      await registerView(d.db, wh, ns, name, location, text);
      sendView(res, location, text);
    }],
  });
}
