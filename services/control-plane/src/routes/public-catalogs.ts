import type { Express } from 'express';
import { badRequest, requireBootstrapSecret, route } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { publicConnection } from '../domain/warehouses/public-connection';
import { tlsAsk } from '../domain/warehouses/tls-ask';

// Spec: GET /v1/public/{handle}/{catalog}/connection (no credential) and the
// internal GET /internal/tls-ask (bootstrap secret; the gateway never
// forwards /internal), both about reaching a catalog's buckets by name.

export function mountPublicCatalogs(app: Express, d: ControlPlaneDeps): void {
  const store = { s3Url: d.config.s3Url, region: d.config.s3.region };

  route(app, '/v1/public/:handle/:catalog/connection', {
    get: [async (req, res) => {
      res.json(await publicConnection(d.prisma, store, String(req.params.handle), String(req.params.catalog)));
    }],
  });

  route(app, '/internal/tls-ask', {
    get: [requireBootstrapSecret(d.config.bootstrapSecret), async (req, res) => {
      const domain = req.query.domain;
      if (typeof domain !== 'string' || domain === '') throw badRequest('missing_field', 'name the domain: ?domain=<bucket>.<store host>', { field: 'domain' });
      res.json(await tlsAsk(d.prisma, new URL(d.config.s3Url).hostname, domain));
    }],
  });
}
