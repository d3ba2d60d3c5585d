import type { Express, Request } from 'express';
import { z } from 'zod';
import { route } from '@floe/http';
import { splitNamespace } from '@floe/iceberg';
import type { CatalogDeps } from '../deps';
import {
  childNamespaces, createNamespace, dropNamespace, namespaceProperties, requireNamespace, updateNamespaceProperties,
} from '../domain/namespaces';
import { NewNamespace } from '../namespace-names';
import { badRequest } from '../errors';
import { pageParams } from '../paging';
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
      if (parent.length) await requireNamespace(d.db, wh(req), parent);
      const { after, pageSize } = pageParams(req);
      const { page, next } = await childNamespaces(d.db, wh(req), parent, after, pageSize);
      const body: Record<string, unknown> = { namespaces: page };
      if (next) body['next-page-token'] = next;
      res.json(body);
    }],
    post: [auth, requirePrefixWithout404, requireWrite, async (req, res) => {
      const body = parseBody(CreateNamespace, req.body);
      const properties = body.properties ?? {};
      await createNamespace(d.db, wh(req), body.namespace, properties);
      res.json({ namespace: body.namespace, properties });
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace', {
    get: [auth, requirePrefix, async (req, res) => {
      const levels = namespaceParam(req);
      // HEAD is answered by this handler too (Express): 204 when it exists, per the spec.
      const properties = await namespaceProperties(d.db, wh(req), levels);
      if (req.method === 'HEAD') return void res.status(204).end();
      res.json({ namespace: levels, properties });
    }],
    delete: [auth, requirePrefix, requireWrite, async (req, res) => {
      await dropNamespace(d.db, wh(req), namespaceParam(req));
      res.status(204).end();
    }],
  });

  route(app, '/v1/:prefix/namespaces/:namespace/properties', {
    post: [auth, requirePrefix, requireWrite, async (req, res) => {
      const levels = namespaceParam(req);
      const body = parseBody(UpdateProperties, req.body);
      res.json(await updateNamespaceProperties(d.db, wh(req), levels, body.removals ?? [], body.updates ?? {}));
    }],
  });
}
