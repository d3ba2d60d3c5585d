import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import {
  applyViewUpdates, checkViewRequirements, InvalidUpdateError, MetadataParseError, metadataFileName, newViewMetadata,
  nextMetadataVersion, parseViewMetadata, parseViewRequirements, parseViewUpdates, serializeViewMetadata,
} from '@floe/iceberg';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { commitFailed, discardUnreferenced } from '../commit';
import { alreadyExists, badRequest, IcebergError, noSuchNamespace } from '../errors';
import { getNamespace } from '../store/namespaces';
import { deleteTable, findTable, insertTable, nameTaken, swapMetadataLocation, type TableRow } from '../store/tables';
import { requirePrefix, requireWrite } from './prefix';
import { readForRegistration } from './register';
import { listIdentifiers, namespaceOf, renameHandler, warehouseOf } from './tables';

// Spec: the view routes of the Iceberg REST catalog. Views share the tables'
// pointer store (kind = 'view') and their name space within a namespace.

const noSuchView = (ns: string[], name: string) => new IcebergError(404, 'NoSuchViewException', `View does not exist: ${[...ns, name].join('.')}`);

function sendView(res: Response, location: string, text: string): void {
  res.status(200).type('application/json').send(`{"metadata-location":${JSON.stringify(location)},"metadata":${text},"config":{}}`);
}

function asBadRequest<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof InvalidUpdateError || err instanceof MetadataParseError) throw badRequest(err.message);
    throw err;
  }
}

export function mountViews(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();

  async function existingView(req: Request, ns: string[], name: string): Promise<TableRow> {
    const v = await findTable(d.db, req.catalogCaller!.warehouseId, ns, name, 'view');
    if (!v || !v.metadataLocation) {
      if (!(await getNamespace(d.db, req.catalogCaller!.warehouseId, ns))) throw noSuchNamespace(ns);
      throw noSuchView(ns, name);
    }
    return v;
  }

  route(app, '/v1/:prefix/namespaces/:namespace/views', {
    get: [auth, requirePrefix, listIdentifiers(d, 'view')],
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      if (typeof name !== 'string' || !name) throw badRequest('Invalid request: name is required');
      if (!body.schema || !body['view-version']) throw badRequest('Invalid request: schema and view-version are required');
      const wh = await warehouseOf(d, req);
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      const root = `s3://${wh.tableBucket}/`;
      const location = typeof body.location === 'string' ? body.location.replace(/\/+$/, '') : `${root}${ns.map(encodeURIComponent).join('/')}/${encodeURIComponent(name)}-${randomUUID().replace(/-/g, '')}`;
      if (!location.startsWith(root) || location.includes('..')) throw badRequest(`View location must be under ${root}`);
      const meta = asBadRequest(() => newViewMetadata({
        location, schema: body.schema as never, viewVersion: body['view-version'] as never, properties: (body.properties ?? {}) as Record<string, string>,
      }));
      const text = serializeViewMetadata(meta);
      const metadataLocation = `${location}/metadata/${metadataFileName(0, randomUUID())}`;
      const s3 = d.storage.objectsAs(wh.rw);
      await d.metadata.write(s3, metadataLocation, text);
      if (!(await insertTable(d.db, { id: randomUUID(), warehouseId: wh.id, namespace: ns, name, kind: 'view', metadataLocation }))) {
        await discardUnreferenced(s3, metadataLocation);
        throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      }
      sendView(res, metadataLocation, text);
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/views/:view', {
    get: [auth, requirePrefix, async (req, res) => {
      const v = await existingView(req, namespaceOf(req), String(req.params.view));
      if (req.method === 'HEAD') return void res.status(204).end();
      const wh = await warehouseOf(d, req);
      sendView(res, v.metadataLocation!, await d.metadata.read(d.storage.objectsAs(wh.rw), v.metadataLocation!));
    }],
    // Replace: requirements and updates, new metadata file, compare-and-set.
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const name = String(req.params.view);
      const v = await existingView(req, ns, name);
      const wh = await warehouseOf(d, req);
      const s3 = d.storage.objectsAs(wh.rw);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const requirements = asBadRequest(() => parseViewRequirements(body.requirements ?? []));
      const updates = asBadRequest(() => parseViewUpdates(body.updates ?? []));
      const current = parseViewMetadata(await d.metadata.read(s3, v.metadataLocation!));
      const failures = checkViewRequirements(current, requirements);
      if (failures.length) throw commitFailed(`Requirement failed: ${failures.map((f) => f.message).join('; ')}`);
      const next = asBadRequest(() => applyViewUpdates(current, updates, { nowMs: Date.now() }));
      const text = serializeViewMetadata(next);
      const nextLocation = `${next.location.replace(/\/+$/, '')}/metadata/${metadataFileName(nextMetadataVersion(v.metadataLocation), randomUUID())}`;
      await d.metadata.write(s3, nextLocation, text);
      if (!(await swapMetadataLocation(d.db, v.id, v.version, nextLocation))) {
        await discardUnreferenced(s3, nextLocation);
        throw commitFailed(`Commit failed: view ${[...ns, name].join('.')} was changed by a concurrent commit`);
      }
      sendView(res, nextLocation, text);
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const v = await existingView(req, namespaceOf(req), String(req.params.view));
      await deleteTable(d.db, v.id);
      res.status(204).end();
    }],
  });

  route(app, '/v1/:prefix/views/rename', {
    post: [auth, requirePrefix, requireWrite, renameHandler(d, 'view', noSuchView)],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/register-view', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const name = body.name;
      const location = body['metadata-location'];
      if (typeof name !== 'string' || !name || typeof location !== 'string' || !location) throw badRequest('Invalid request: name and metadata-location are required');
      const wh = await warehouseOf(d, req);
      if (!location.startsWith(`s3://${wh.tableBucket}/`)) throw badRequest(`metadata-location must be under s3://${wh.tableBucket}/`);
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      const text = await readForRegistration(d, wh, location);
      asBadRequest(() => parseViewMetadata(text));
      if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      if (!(await insertTable(d.db, { id: randomUUID(), warehouseId: wh.id, namespace: ns, name, kind: 'view', metadataLocation: location }))) {
        throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      }
      sendView(res, location, text);
    }],
  });
}
