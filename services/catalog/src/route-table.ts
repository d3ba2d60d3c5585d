import type { Express } from 'express';
import { notBuiltYet } from './routes/unbuilt';
import { SPEC_OPERATIONS } from './spec-operations';

// GET /v1/config's `endpoints`, read off the running app instead of kept by
// hand: an operation of the Iceberg REST document is advertised when a route
// of the app serves its method and path with a handler that is not the 501 of
// routes/unbuilt.ts. express answers HEAD with the GET route.

// Discovery and the token exchange are how an engine arrives; the document's
// `endpoints` list what it may call after that.
const NOT_ADVERTISED = new Set(['getConfig', 'getToken']);

interface RouteLayer {
  route?: { path: string; stack: Array<{ method?: string; handle: unknown }> };
}

const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z_]\w*/g, ':');

/** "METHOD /v1/{prefix}/…" of every document operation the app serves, in the document's order. */
export function servedEndpoints(app: Express): string[] {
  const served = new Set<string>();
  for (const layer of (app.router as unknown as { stack: RouteLayer[] }).stack) {
    if (!layer.route) continue;
    const byMethod = new Map<string, boolean>();
    for (const h of layer.route.stack) {
      if (!h.method) continue;
      byMethod.set(h.method, (byMethod.get(h.method) ?? true) && h.handle !== notBuiltYet);
    }
    for (const [method, built] of byMethod) {
      if (!built) continue;
      served.add(`${method.toUpperCase()} ${shape(layer.route.path)}`);
      if (method === 'get') served.add(`HEAD ${shape(layer.route.path)}`);
    }
  }
  return SPEC_OPERATIONS
    .filter((op) => !NOT_ADVERTISED.has(op.operationId) && served.has(`${op.method} ${shape(op.path)}`))
    .map((op) => `${op.method} ${op.path}`);
}
