import express, { type Express, type Response } from 'express';
import { route } from '@floe/http';
import type { CatalogDeps } from '../deps';

// POST /v1/oauth/tokens: client_credentials with a catalog credential, sent
// form-encoded (PyIceberg, Spark) or as JSON, with the client in the body or
// in HTTP Basic auth. Identity checks the secret and signs the token. Errors
// use the OAuth flat form {error, error_description}.

function oauthError(res: Response, status: number, error: string, description: string): void {
  res.status(status).json({ error, error_description: description });
}

export function mountOAuth(app: Express, d: CatalogDeps): void {
  route(app, '/v1/oauth/tokens', {
    post: [express.urlencoded({ extended: false, limit: '16kb' }), async (req, res) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      let clientId = typeof body.client_id === 'string' ? body.client_id : undefined;
      let clientSecret = typeof body.client_secret === 'string' ? body.client_secret : undefined;
      const basic = /^Basic\s+(\S+)$/i.exec(req.get('authorization') ?? '');
      if (basic && !clientId) {
        const decoded = Buffer.from(basic[1], 'base64').toString('utf8');
        const i = decoded.indexOf(':');
        if (i > 0) {
          clientId = decodeURIComponent(decoded.slice(0, i));
          clientSecret = decodeURIComponent(decoded.slice(i + 1));
        }
      }
      if (body.grant_type !== 'client_credentials') {
        return oauthError(res, 400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
      }
      if (!clientId || !clientSecret) return oauthError(res, 400, 'invalid_request', 'client_id and client_secret are required');

      const upstream = await fetch(`${d.config.services.identity}/internal/catalog-tokens`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/json',
          Authorization: `Bearer ${d.config.bootstrapSecret ?? ''}`,
          'X-Request-Id': req.requestId,
        },
        body: JSON.stringify({ client_id: clientId, client_secret: clientSecret, ip: req.ip ?? 'unknown' }),
        signal: AbortSignal.timeout(10_000),
      });
      const answer = (await upstream.json()) as Record<string, any>;
      if (upstream.status === 200) {
        return void res.json({
          access_token: answer.access_token,
          token_type: 'bearer',
          expires_in: answer.expires_in,
          issued_token_type: answer.issued_token_type,
        });
      }
      if (upstream.status === 429) {
        res.set('Retry-After', upstream.headers.get('retry-after') ?? '60');
        return oauthError(res, 429, 'invalid_client', 'too many wrong secrets for this client from this address; try again later');
      }
      if (upstream.status === 401) return oauthError(res, 401, 'invalid_client', 'unknown client or wrong secret');
      d.logger.error('catalog token exchange failed', { request_id: req.requestId, status: upstream.status, answer });
      return oauthError(res, 503, 'temporarily_unavailable', 'the token service is not answering; retry shortly');
    }],
  });
}
