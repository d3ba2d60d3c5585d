import express, { type ErrorRequestHandler, type Express, type Response } from 'express';
import { flatOAuthBody, HttpError, knownFailure, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { authorize, type AuthorizeQuery } from '../domain/oauth-authorize';
import { registerClient } from '../domain/oauth-register';
import { authorizationServerMetadata, OAuthError } from '../domain/oauth-server';
import { exchangeToken, revokeToken } from '../domain/oauth-token';

// Spec: Remote tool-host authorization server (OAuth 2.1) — the endpoints a
// tool host calls without a credential: the RFC 8414 document, the
// authorization request and the deprecated dynamic registration. Every
// refusal of /oauth/authorize and /oauth/register is in the flat form
// `{error, error_description}`, the shared middleware's included (a body too
// large, bad JSON, a NUL in the query). The token and revocation endpoints
// take a form or JSON and answer `no-store`.

const PARAMS = ['client_id', 'redirect_uri', 'response_type', 'code_challenge', 'code_challenge_method', 'resource', 'scope', 'state'] as const;

const flat = (res: Response, status: number, error: string, description: string) => void res.status(status).json({ error, error_description: description });

export function mountOAuth(app: Express, d: IdentityDeps): void {
  route(app, '/.well-known/oauth-authorization-server', {
    get: (_req, res) => void res.set('Cache-Control', 'public, max-age=3600').json(authorizationServerMetadata(d.config)),
  });

  route(app, '/oauth/authorize', {
    get: async (req, res) => {
      // A repeated parameter never arrives: the shared middleware refuses it (here flat through flatErrors; the gateway's own check answers first, in the envelope).
      const q: AuthorizeQuery = {};
      for (const name of PARAMS) if (typeof req.query[name] === 'string') q[name] = req.query[name];
      res.redirect(302, await authorize(d, req.ip ?? 'unknown', q));
    },
  });

  route(app, '/oauth/register', {
    post: async (req, res) => void res.status(201).json(await registerClient(d, req.ip ?? 'unknown', req.body)),
  });

  const form = express.urlencoded({ extended: false, limit: d.config.bodyLimitBytes, parameterLimit: 20 });
  route(app, '/oauth/token', {
    post: [form, async (req, res) => {
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(await exchangeToken(d, req.body));
    }],
  });

  route(app, '/oauth/revoke', {
    post: [form, async (req, res) => {
      res.set({ 'Cache-Control': 'no-store', Pragma: 'no-cache' }).json(await revokeToken({ ...d, keys: d.auth.keys }, req.body));
    }],
  });

  app.use(['/oauth/authorize', '/oauth/register', '/oauth/token', '/oauth/revoke'], flatErrors(d));
}

/**
 * Any failure on these paths in the flat form: refusals as thrown; the shared
 * middleware's and a value the database refused as invalid_request
 * (invalid_client_metadata on /oauth/register: flatOAuthBody); the rest
 * logged, 500 server_error.
 */
function flatErrors(d: IdentityDeps): ErrorRequestHandler {
  // Mounted on the endpoints' paths: there `req.path` is what follows the mount, `req.baseUrl` the endpoint.
  return (err, req, res, _next) => {
    if (err instanceof OAuthError) {
      res.set(err.headers);
      return flat(res, err.status, err.error, err.message);
    }
    const known = knownFailure(err, d.config.bodyLimitBytes, d.logger, req);
    if (known && known.status < 500) return void res.status(known.status).set(known.headers).json(flatOAuthBody(known, req.requestId, req.baseUrl));
    d.logger.error('unhandled error', { request_id: req.requestId, method: req.method, path: req.path, err });
    return void res.status(500).json(flatOAuthBody(new HttpError(500, 'internal_error', 'unexpected'), req.requestId));
  };
}
