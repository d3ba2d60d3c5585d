import type { Express } from 'express';
import { mountUnbuilt as mountUnbuiltRoutes, type RouteHandlers, type UnbuiltRoute } from '@floe/http';
import type { IdentityDeps } from '../deps';

// Identity-owned routes of the spec that later issues build. Until then each
// answers 501 in the error envelope (listed in the README), never a fake.
// Those the spec gives a caller authenticate first (an unauthenticated call
// is 401, as it will be once built); those it marks "Auth none" (sign-up,
// login, refresh, recovery, the OAuth server's endpoints)
// answer 501 to anyone.
const NONE = 'none' as const;
// Every identity route of the spec is built; the list stays for the next one.
const UNBUILT: Array<[string, Array<keyof RouteHandlers>, string, (typeof NONE)?]> = [];

export const UNBUILT_IDENTITY_ROUTES: UnbuiltRoute[] = UNBUILT.map(([path, methods, what, auth]) => ({ path, methods, what, auth: auth ?? 'caller' }));

export function mountUnbuilt(app: Express, d: IdentityDeps): void {
  mountUnbuiltRoutes(app, UNBUILT_IDENTITY_ROUTES, [d.auth.requireCaller()]);
}
