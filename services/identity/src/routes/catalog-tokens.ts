import { randomUUID } from 'node:crypto';
import type { Express } from 'express';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { CATALOG_CLIENT_ID_MAX, CATALOG_CLIENT_SECRET_MAX, secretMatches, WrongSecretLimiter } from '@floe/auth';
import { HttpError, parse, rateLimited, route } from '@floe/http';
import type { IdentityDeps } from '../deps';

// Catalog tokens: the catalog's POST /v1/oauth/tokens forwards the client
// credentials here, because identity alone signs tokens. The audience is the
// catalog_url, so the control plane refuses these tokens, and the catalog
// refuses control-plane ones.

export const CATALOG_TOKEN_LIFETIME_SECONDS = 3600;

const Exchange = z.object({
  client_id: z.string().min(1).max(CATALOG_CLIENT_ID_MAX),
  client_secret: z.string().min(1).max(CATALOG_CLIENT_SECRET_MAX),
  /** The caller's address as the catalog saw it, for the wrong-secret limit. */
  ip: z.string().max(64).default('unknown'),
});

export function mountCatalogTokens(app: Express, d: IdentityDeps): void {
  const limiter = new WrongSecretLimiter(d.redis, `${d.config.redisPrefix}catalog:`);

  route(app, '/internal/catalog-tokens', {
    post: async (req, res) => {
      const body = parse(Exchange, req.body);
      // The secret is compared only under a reserved wrong-secret point (see
      // WrongSecretLimiter.judge), so concurrent guesses cannot outrun the limit.
      let cred: { secret_hash: string; access: string; warehouse_id: string; revoked: boolean; live: boolean } | undefined;
      const judged = await limiter.judge(body.client_id, body.ip, async () => {
        const { rows } = await d.db.query<NonNullable<typeof cred>>(
          `SELECT c.secret_hash, c.access, c.warehouse_id, c.revoked_at IS NOT NULL AS revoked,
                  (w.deleted_at IS NULL AND w.status <> 'deleting') AS live
             FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id WHERE c.client_id = $1`,
          [body.client_id],
        );
        cred = rows[0];
        return cred !== undefined && secretMatches(body.client_secret, cred.secret_hash);
      });
      if (judged.verdict === 'refused') throw rateLimited(judged.retryAfterSeconds);
      if (judged.verdict === 'wrong' || !cred) throw new HttpError(401, 'invalid_client', 'unknown client or wrong secret');
      if (cred.revoked || !cred.live) throw new HttpError(401, 'invalid_client', 'this catalog credential is no longer valid');
      res.json(await mint(d, body.client_id, cred.warehouse_id, cred.access));
    },
  });

  // The control plane's table routes act through the catalog as the
  // warehouse's own identity: a token for its current read/write credential,
  // minted without the secret (which only the credential's holders have).
  route(app, '/internal/catalog-tokens/warehouse', {
    post: async (req, res) => {
      const body = parse(ForWarehouse, req.body);
      const { rows } = await d.db.query<{ client_id: string }>(
        `SELECT c.client_id FROM catalog_credentials c JOIN warehouses w ON w.id = c.warehouse_id
          WHERE c.warehouse_id = $1 AND c.access = 'write' AND c.revoked_at IS NULL AND w.deleted_at IS NULL AND w.status <> 'deleting'
          ORDER BY c.created_at DESC LIMIT 1`,
        [body.warehouse_id],
      );
      if (!rows[0]) throw new HttpError(404, 'warehouse_not_found', `warehouse ${body.warehouse_id} has no live read/write credential`);
      res.json(await mint(d, rows[0].client_id, body.warehouse_id, 'write'));
    },
  });
}

const ForWarehouse = z.object({ warehouse_id: z.string().min(1).max(100) });

async function mint(d: IdentityDeps, clientId: string, warehouseId: string, access: string) {
  const signer = await d.signingKeys.currentSigner();
  const token = await new SignJWT({ kind: 'catalog', warehouse_id: warehouseId, access })
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
    .setIssuer(d.config.baseUrl)
    .setSubject(clientId)
    .setAudience(d.config.catalogUrl)
    .setIssuedAt()
    .setExpirationTime(`${CATALOG_TOKEN_LIFETIME_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: CATALOG_TOKEN_LIFETIME_SECONDS,
    issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
    warehouse_id: warehouseId,
    access,
  };
}
