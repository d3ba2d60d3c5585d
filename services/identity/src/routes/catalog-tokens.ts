import type { Express } from 'express';
import { z } from 'zod';
import { CATALOG_CLIENT_ID_MAX, CATALOG_CLIENT_SECRET_MAX, WrongSecretLimiter } from '@floe/auth';
import { parse, route } from '@floe/http';
import type { IdentityDeps } from '../deps';
import { exchangeCatalogCredential, warehouseCatalogToken } from '../domain/catalog-tokens';

// Spec: Internal routes — catalog tokens (domain/catalog-tokens.ts says what they are).

const Exchange = z.object({
  client_id: z.string().min(1).max(CATALOG_CLIENT_ID_MAX),
  client_secret: z.string().min(1).max(CATALOG_CLIENT_SECRET_MAX),
  /** The caller's address as the catalog saw it, for the wrong-secret limit. */
  ip: z.string().max(64).default('unknown'),
});

const ForWarehouse = z.object({ warehouse_id: z.string().min(1).max(100) });

export function mountCatalogTokens(app: Express, d: IdentityDeps): void {
  const limiter = new WrongSecretLimiter(d.redis, `${d.config.redisPrefix}catalog:`);

  route(app, '/internal/catalog-tokens', {
    post: async (req, res) => {
      const body = parse(Exchange, req.body);
      res.json(await exchangeCatalogCredential(d, limiter, { clientId: body.client_id, clientSecret: body.client_secret, ip: body.ip }));
    },
  });

  route(app, '/internal/catalog-tokens/warehouse', {
    post: async (req, res) => {
      const body = parse(ForWarehouse, req.body);
      res.json(await warehouseCatalogToken(d, body.warehouse_id));
    },
  });
}
