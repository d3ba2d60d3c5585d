import type { Express } from 'express';
import { mountUnbuilt as mountUnbuiltRoutes, type RouteHandlers, type UnbuiltRoute } from '@floe/http';

// Identity-owned routes of the spec that later issues build. Until then each
// answers 501 in the error envelope (listed in the README), never a fake.
const UNBUILT: Array<[string, Array<keyof RouteHandlers>, string]> = [
  ['/v1/signup/start', ['post'], 'e-mail code sign-up'],
  ['/v1/signup/verify', ['post'], 'e-mail code sign-up'],
  ['/v1/handles/:handle', ['get'], 'handle lookup'],
  ['/v1/recover/start', ['post'], 'key recovery'],
  ['/v1/recover/verify', ['post'], 'key recovery'],
  ['/v1/auth/signup', ['post'], 'password sign-up'],
  ['/v1/auth/password/set', ['post'], 'password sign-up'],
  ['/v1/auth/login', ['post'], 'password login'],
  ['/v1/auth/refresh', ['post'], 'login sessions'],
  ['/v1/auth/logout', ['post'], 'login sessions'],
  ['/v1/auth/sessions', ['get'], 'login sessions'],
  ['/v1/auth/sessions/:session_id', ['delete'], 'login sessions'],
  ['/v1/auth/password/reset/start', ['post'], 'password reset'],
  ['/v1/auth/password/reset', ['post'], 'password reset'],
  ['/v1/auth/password/change', ['post'], 'password change'],
  ['/v1/auth/device', ['post'], 'device authorisation'],
  ['/v1/auth/device/pending', ['get'], 'device authorisation'],
  ['/v1/auth/device/approve', ['post'], 'device authorisation'],
  ['/v1/auth/device/status', ['get'], 'device authorisation'],
  ['/v1/auth/device/token', ['post'], 'device authorisation'],
  ['/.well-known/oauth-authorization-server', ['get'], 'the OAuth authorization server'],
  ['/oauth/authorize', ['get'], 'the OAuth authorization server'],
  ['/oauth/token', ['post'], 'the OAuth authorization server'],
  ['/oauth/revoke', ['post'], 'the OAuth authorization server'],
  ['/oauth/register', ['post'], 'the OAuth authorization server'],
  ['/v1/oauth/authorize/pending', ['get'], 'the OAuth consent flow'],
  ['/v1/oauth/authorize/decision', ['post'], 'the OAuth consent flow'],
  ['/v1/terms', ['get'], 'terms'],
  ['/v1/terms/accept', ['post'], 'terms'],
  ['/v1/me', ['delete'], 'account deletion'],
];

export const UNBUILT_IDENTITY_ROUTES: UnbuiltRoute[] = UNBUILT.map(([path, methods, what]) => ({ path, methods, what }));

export function mountUnbuilt(app: Express): void {
  mountUnbuiltRoutes(app, UNBUILT_IDENTITY_ROUTES);
}
