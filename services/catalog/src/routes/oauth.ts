import express, { type ErrorRequestHandler, type Express, type Response } from 'express';
import { couldBeCatalogCredential } from '@floe/auth';
import { exchangeCatalogCredential } from '@floe/catalogs/catalog-tokens';
import { HttpError, route, toHttpError } from '@floe/http';
import type { CatalogDeps } from '../deps';

// POST /v1/oauth/tokens: client_credentials with a catalog credential, sent
// form-encoded (PyIceberg, Spark) or as JSON, with the client in the body or
// in HTTP Basic auth. The secret is checked and the token signed here, in
// process (packages/catalogs catalog-tokens.ts), under the wrong-secret limit.
//
// Every answer of this path is in the OAuth flat form {error, error_description}
// (RFC 6749 5.2), the form OAuth clients parse — refusals of the shared
// middleware (a body too large, bad JSON, a NUL in the query) included:
// malformed requests are 400 invalid_request, a client id or secret no
// credential can have is 401 invalid_client like any unknown client. 503
// temporarily_unavailable is kept for the database not answering, because
// engines retry it.

/** Client credentials are short: a form body past this is not a token request. */
const FORM_LIMIT_BYTES = 16 * 1024;

function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

class OAuthRefusal extends Error {
  constructor(readonly status: number, readonly error: string, message: string) {
    super(message);
  }
}

/**
 * The client from `Authorization: Basic`, whose id and secret are each
 * form-urlencoded before base64 (RFC 6749 2.3.1); null without that header.
 */
function basicClient(header: string | undefined): { clientId: string; clientSecret: string } | null {
  const basic = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!basic) return null;
  const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i <= 0) throw new OAuthRefusal(400, 'invalid_request', 'the Basic credentials must be client_id:client_secret');
  try {
    const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
    return { clientId: formDecode(decoded.slice(0, i)), clientSecret: formDecode(decoded.slice(i + 1)) };
  } catch {
    throw new OAuthRefusal(400, 'invalid_request', 'the Basic credentials hold a broken percent-escape');
  }
}

export function mountOAuth(app: Express, d: CatalogDeps): void {
  route(app, '/v1/oauth/tokens', {
    post: [express.urlencoded({ extended: false, limit: FORM_LIMIT_BYTES }), async (req, res) => {
      // validate
      const isObject = req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body);
      if (req.body !== undefined && !isObject) throw new OAuthRefusal(400, 'invalid_request', 'send a form or a JSON object');
      const body = (req.body ?? {}) as Record<string, unknown>;
      for (const name of ['grant_type', 'client_id', 'client_secret', 'scope']) {
        if (Array.isArray(body[name])) throw new OAuthRefusal(400, 'invalid_request', `${name} is repeated`);
      }
      let clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
      let clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
      const basic = basicClient(req.get('authorization'));
      if (basic && !clientId) ({ clientId, clientSecret } = basic);
      if (body.grant_type !== 'client_credentials') {
        return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
      }
      if (!clientId || !clientSecret) return oauthError(res, 400, 'invalid_request', 'client_id and client_secret are required');
      if (!couldBeCatalogCredential(clientId, clientSecret)) return oauthError(res, 401, 'invalid_client', 'unknown client or wrong secret');

      // act
      const minted = await exchangeCatalogCredential(d.tokens, d.wrongSecrets, { clientId, clientSecret, ip: req.ip ?? 'unknown' }).catch((err: unknown) => {
        if (err instanceof HttpError && err.status === 429) {
          res.set(err.headers);
          throw new OAuthRefusal(429, 'invalid_client', 'too many wrong secrets for this client from this address; try again later');
        }
        if (err instanceof HttpError && err.status === 401) throw new OAuthRefusal(401, 'invalid_client', 'unknown client or wrong secret');
        d.logger.error('catalog token exchange failed', { request_id: req.requestId, err });
        throw new OAuthRefusal(503, 'temporarily_unavailable', 'the token service is not answering; retry shortly');
      });

      // answer
      res.json({ access_token: minted.access_token, token_type: 'bearer', expires_in: minted.expires_in, issued_token_type: minted.issued_token_type });
    }],
  });
  app.use('/v1/oauth/tokens', flatErrors(d));
}

/** Any failure on this path, in the flat form: known refusals keep their status as invalid_request; the rest is logged, 500. */
function flatErrors(d: CatalogDeps): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (err instanceof OAuthRefusal) return oauthError(res, err.status, err.error, err.message);
    const known = toHttpError(err, d.config.bodyLimitBytes);
    if (known && known.status < 500) {
      res.set(known.headers);
      return oauthError(res, known.status, 'invalid_request', known.message);
    }
    d.logger.error('unhandled error', { request_id: req.requestId, method: req.method, path: req.path, err });
    return oauthError(res, 500, 'server_error', 'an unexpected error occurred; it has been logged with this request id');
  };
}
