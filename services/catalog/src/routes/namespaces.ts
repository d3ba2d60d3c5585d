import type { Express, Request } from 'express';
import { z } from 'zod';
import { route } from '@floe/http';
import { joinNamespace, splitNamespace } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import { NewNamespace } from '../namespace-names';
import { alreadyExists, badRequest, IcebergError, noSuchNamespace } from '../errors';
import {
  changeNamespaceProperties, deleteNamespace, getNamespace, insertNamespace, listNamespaces, namespaceContents,
} from '../store/namespaces';
import { pageOf, pageParams } from '../paging';
import { requirePrefix, requirePrefixWithout404, requireWrite } from '../guards';

const Properties = z.record(z.string(), z.string());
const CreateNamespace = z.object({ namespace: NewNamespace, properties: Properties.optional() });
const UpdateProperties = z.object({ removals: z.array(z.string()).optional(), updates: Properties.optional() });


function parseBody<T extends z.ZodType>(schema: T, body: unknown): z.infer<T> {
  const r = schema.safeParse(body ?? {});
  if (!r.success) {
    const i = r.error.issues[0];
    throw badRequest(`Invalid request: ${i.path.join('.') || 'body'}: ${i.message}`);
  }
  return r.data;
}

function namespaceParam(req: Request): string[] {
  const levels = splitNamespace(String(req.params.namespace));
  if (levels.some((l) => l.length === 0)) throw badRequest('Invalid namespace: empty level');
  return levels;
}

// Spec: the namespace routes of the Iceberg REST catalog.
export function mountNamespaces(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();
  const wh = (req: Request) => req.catalogCaller!.warehouseId;

  route(app, '/v1/:prefix/namespaces', {
    get: [auth, requirePrefix, async (req, res) => {
      const parent = typeof req.query.parent === 'string' && req.query.parent !== '' ? splitNamespace(req.query.parent) : [];
      if (parent.length && !(await getNamespace(d.db, wh(req), parent))) throw noSuchNamespace(parent);
      const { after, pageSize } = pageParams(req);
      const { page, next } = pageOf(await listNamespaces(d.db, wh(req), parent, after, pageSize + 1), pageSize, joinNamespace);
      const body: Record<string, unknown> = { namespaces: page };
      if (next) body['next-page-token'] = next;
      res.json(body);
    }],
    post: [auth, requirePrefixWithout404, requireWrite, async (req, res) => {
      const body = parseBody(CreateNamespace, req.body);
      const levels = body.namespace;
      // The REST document declares no 404 for createNamespace: a missing parent is a bad request.
      if (levels.length > 1 && !(await getNamespace(d.db, wh(req), levels.slice(0, -1)))) {
        throw badRequest(`Parent namespace does not exist: ${levels.slice(0, -1).join('.')}`);
      }
      if (!(await insertNamespace(d.db, wh(req), levels, body.properties ?? {}))) throw alreadyExists(`Namespace ${levels.join('.')}`);
      res.json({ namespace: levels, properties: body.properties ?? {} });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace', {
    get: [auth, requirePrefix, async (req, res) => {
      const levels = namespaceParam(req);
      // HEAD is answered by this handler too (Express): 204 when it exists, per the spec.
      const properties = await getNamespace(d.db, wh(req), levels);
      if (!properties) throw noSuchNamespace(levels);
      if (req.method === 'HEAD') return void res.status(204).end();
      res.json({ namespace: levels, properties });
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      const levels = namespaceParam(req);
      if (!(await getNamespace(d.db, wh(req), levels))) throw noSuchNamespace(levels);
      const contents = await namespaceContents(d.db, wh(req), levels);
      if (contents.tables || contents.children) {
        throw new IcebergError(409, 'NamespaceNotEmptyException',
          `Namespace ${levels.join('.')} is not empty: ${contents.tables} tables or views, ${contents.children} namespaces`);
      }
      await deleteNamespace(d.db, wh(req), levels);
      res.status(204).end();
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/properties', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const levels = namespaceParam(req);
      const body = parseBody(UpdateProperties, req.body);
      const removals = body.removals ?? [];
      const updates = body.updates ?? {};
      const both = removals.filter((k) => k in updates);
      if (both.length) throw new IcebergError(422, 'UnprocessableEntityException', `Keys both removed and updated: ${both.join(', ')}`);
      const change = await changeNamespaceProperties(d.db, wh(req), levels, removals, updates);
      if (!change) throw noSuchNamespace(levels);
      res.json(change);
    }],
  });
}
