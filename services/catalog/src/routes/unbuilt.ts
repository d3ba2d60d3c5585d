import type { Express, RequestHandler } from 'express';
import { route, type RouteHandlers } from '@floe/http';
import type { CatalogDeps } from '../deps';
import { IcebergError } from '../errors';
import { requirePrefix } from '../guards';

// Routes of the Iceberg REST OpenAPI document that later work builds. Until
// then each answers 501 NotImplementedException (listed in the README and
// left out of the config route's `endpoints`), never a fake. None today:
// every operation of the document the catalog follows is served
// (docs/catalog-compatibility.md); a newer document's operations go here
// until they are built.
const UNBUILT: Array<[string, Array<keyof RouteHandlers>]> = [];

/** Answers 501 for a route (or one method of a route) that is not built yet. */
export const notBuiltYet: RequestHandler = (req) => {
  throw new IcebergError(501, 'NotImplementedException', `${req.method} ${req.route?.path ?? req.path} is not implemented by this catalog yet`);
};

export function mountUnbuilt(app: Express, d: CatalogDeps): void {
  const auth = d.auth.requireCaller();
  for (const [path, methods] of UNBUILT) {
    const handlers: RouteHandlers = {};
    for (const m of methods) handlers[m] = [auth, requirePrefix, notBuiltYet];
    route(app, path, handlers);
  }
}
