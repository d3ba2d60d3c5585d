import type { RequestHandler } from 'express';
import { findTable, getNamespace, listTables, nameTaken, renameTable } from '@floe/catalog-store';
import type { CatalogDeps } from './deps';
import { alreadyExists, badRequest, noSuchNamespace, type IcebergError } from './errors';
import { pageOf, pageParams } from './paging';
import { namespaceOf } from './request';

// The handlers tables and views share ("tabular", as lakekeeper calls
// either): listing the identifiers of one kind in a namespace, and renaming.

/** GET …/tables and GET …/views: the identifiers of one kind in a namespace, paged. */
export function listIdentifiers(d: CatalogDeps, kind: 'table' | 'view'): RequestHandler {
  return async (req, res) => {
    const ns = namespaceOf(req);
    if (!(await getNamespace(d.db, req.catalogCaller!.warehouseId, ns))) throw noSuchNamespace(ns);
    const { after, pageSize } = pageParams(req);
    const { page, next } = pageOf(await listTables(d.db, req.catalogCaller!.warehouseId, ns, kind, after, pageSize + 1), pageSize, (n) => n);
    const body: Record<string, unknown> = { identifiers: page.map((name) => ({ namespace: ns, name })) };
    if (next) body['next-page-token'] = next;
    res.json(body);
  };
}

/** POST …/tables/rename and POST …/views/rename: move one table or view to another identifier. */
export function renameHandler(d: CatalogDeps, kind: 'table' | 'view', missing: (ns: string[], name: string) => IcebergError): RequestHandler {
  const noun = kind === 'table' ? 'Table' : 'View or table';
  return async (req, res) => {
    const body = req.body as { source?: { namespace?: string[]; name?: string }; destination?: { namespace?: string[]; name?: string } };
    const src = body?.source;
    const dst = body?.destination;
    if (!src?.namespace || !src.name || !dst?.namespace || !dst.name) throw badRequest('source and destination identifiers are required');
    const wh = req.catalogCaller!.warehouseId;
    const found = await findTable(d.db, wh, src.namespace, src.name, kind);
    if (!found) throw missing(src.namespace, src.name);
    if (!(await getNamespace(d.db, wh, dst.namespace))) throw noSuchNamespace(dst.namespace);
    if ((await nameTaken(d.db, wh, dst.namespace, dst.name)) || !(await renameTable(d.db, found.id, dst.namespace, dst.name))) {
      throw alreadyExists(`${noun} ${[...dst.namespace, dst.name].join('.')}`);
    }
    res.status(204).end();
  };
}
