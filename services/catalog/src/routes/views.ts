import { randomUUID } from 'node:crypto';
import type { Express, Request, Response } from 'express';
import {
  applyViewUpdates, checkViewRequirements, InvalidUpdateError, MetadataParseError, metadataFileName, newViewMetadata, parseCreateViewRequest,
  nextMetadataVersion, parseViewMetadata, parseViewRequirements, parseViewUpdates, serializeViewMetadata,
} from '@floe/iceberg';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { commitFailed, placePointer, writeAndPlace } from '../commit';
import { readMetadata } from '../metadata-files';
import { alreadyExists, badRequest, IcebergError, noSuchNamespace } from '../errors';
import { checkedLocation, derivedLocation, isWithin, locationTaken } from '../locations';
import { overlappingHolder } from '../store/locations';
import { getNamespace } from '../store/namespaces';
import { deleteTable, findTable, nameTaken, type PointerMove, type TableRow } from '../store/tables';
import { requirePrefix, requireWrite } from '../guards';
import { readForRegistration } from '../registration';
import { namespaceOf, warehouseOf } from '../request';
import { listIdentifiers, renameHandler } from '../tabular';
import type { WarehouseRow } from '../store/warehouses';

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

  /** The view, or NoSuchViewException (also when its namespace does not exist, as for tables). */
  async function existingView(req: Request, ns: string[], name: string): Promise<TableRow> {
    const v = await findTable(d.db, req.catalogCaller!.warehouseId, ns, name, 'view');
    if (!v || !v.metadataLocation) throw noSuchView(ns, name);
    return v;
  }

  /** Writes a view's metadata file, then its pointer (commit.ts writeAndPlace). */
  const placeView = (wh: WarehouseRow, move: PointerMove, text: string) => writeAndPlace(d, wh, move, text, 'View');

  route(app, '/v1/:prefix/namespaces/:namespace/views', {
    get: [auth, requirePrefix, listIdentifiers(d, 'view')],
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const body = asBadRequest(() => parseCreateViewRequest(req.body ?? {}));
      const name = body.name;
      const wh = warehouseOf(req);
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      const location = body.location === undefined || body.location === null
        ? derivedLocation(wh.tableBucket, ns, name, randomUUID().replace(/-/g, ''))
        : checkedLocation(body.location, wh.tableBucket, 'View location');
      const holder = await overlappingHolder(d.db, wh.id, location);
      if (holder) throw locationTaken('View location', location, holder);
      const meta = asBadRequest(() => newViewMetadata({
        location, schema: body.schema, viewVersion: body['view-version'], properties: body.properties ?? {},
      }));
      const text = serializeViewMetadata(meta);
      const metadataLocation = `${location}/metadata/${metadataFileName(0, randomUUID())}`;
      await placeView(wh, { id: randomUUID(), expectedVersion: null, namespace: ns, name, kind: 'view', metadataLocation, location, relocated: true }, text);
      sendView(res, metadataLocation, text);
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/views/:view', {
    get: [auth, requirePrefix, async (req, res) => {
      const v = await existingView(req, namespaceOf(req), String(req.params.view));
      if (req.method === 'HEAD') return void res.status(204).end();
      const wh = warehouseOf(req);
      sendView(res, v.metadataLocation!, await readMetadata(d, wh, v.metadataLocation!));
    }],
    // Replace: requirements and updates, new metadata file, compare-and-set.
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const name = String(req.params.view);
      const v = await existingView(req, ns, name);
      const wh = warehouseOf(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      const requirements = asBadRequest(() => parseViewRequirements(body.requirements ?? []));
      const updates = asBadRequest(() => parseViewUpdates(body.updates ?? []));
      const current = parseViewMetadata(await readMetadata(d, wh, v.metadataLocation!));
      const failures = checkViewRequirements(current, requirements);
      if (failures.length) throw commitFailed(`Requirement failed: ${failures.map((f) => f.message).join('; ')}`);
      const next = asBadRequest(() => applyViewUpdates(current, updates, { nowMs: Date.now() }));
      const relocated = next.location !== current.location;
      const location = relocated ? checkedLocation(next.location, wh.tableBucket, 'View location') : next.location.replace(/\/+$/, '');
      const text = serializeViewMetadata(next);
      const nextLocation = `${location}/metadata/${metadataFileName(nextMetadataVersion(v.metadataLocation), randomUUID())}`;
      await placeView(wh, { id: v.id, expectedVersion: v.version, namespace: ns, name, kind: 'view', metadataLocation: nextLocation, location, relocated }, text);
      sendView(res, nextLocation, text);
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const ns = namespaceOf(req);
      const v = await existingView(req, ns, String(req.params.view));
      if (!(await deleteTable(d.db, v.id))) throw noSuchView(ns, v.name);
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
      const wh = warehouseOf(req);
      if (!(await getNamespace(d.db, wh.id, ns))) throw noSuchNamespace(ns);
      const text = await readForRegistration(d, wh, location);
      const meta = asBadRequest(() => parseViewMetadata(text));
      const viewLocation = checkedLocation(meta.location, wh.tableBucket, 'View location');
      if (!isWithin(location, viewLocation)) throw badRequest(`metadata-location ${location} must lie within the view's location ${viewLocation}`);
      if (await nameTaken(d.db, wh.id, ns, name)) throw alreadyExists(`View or table ${[...ns, name].join('.')}`);
      await placePointer(d.db, wh.id, { id: randomUUID(), expectedVersion: null, namespace: ns, name, kind: 'view', metadataLocation: location, location: viewLocation, relocated: true }, 'View');
      sendView(res, location, text);
    }],
  });
}
