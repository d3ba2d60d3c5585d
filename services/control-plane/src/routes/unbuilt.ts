import type { Express } from 'express';
import { mountUnbuilt as mountUnbuiltRoutes, type RouteHandlers, type UnbuiltRoute } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';

// Control-plane routes of the spec that later issues build. Until then each
// answers 501 in the error envelope (listed in the README), never a fake;
// every one but the public connection needs a caller and authenticates
// first, so an unauthenticated caller gets the 401 the built route will give.
const NONE = 'none' as const;
const UNBUILT: Array<[string, Array<keyof RouteHandlers>, string, (typeof NONE)?]> = [
  ['/v1/indexes', ['post'], 'indexes'],
  ['/v1/indexes/:index_id', ['get', 'delete'], 'indexes'],
];

export const UNBUILT_CONTROL_PLANE_ROUTES: UnbuiltRoute[] = UNBUILT.map(([path, methods, what, auth]) => ({ path, methods, what, auth: auth ?? 'caller' }));

export function mountUnbuilt(app: Express, d: ControlPlaneDeps): void {
  mountUnbuiltRoutes(app, UNBUILT_CONTROL_PLANE_ROUTES, d.authed);
}
