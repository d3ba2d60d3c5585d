import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { secretMatches, type WrongSecretLimiter } from '@floe/auth';
import type { Db } from '@floe/db';
import { HttpError, rateLimited } from '@floe/http';
import type { SigningKeys } from '../signing/signing-keys';
import { credentialForExchange, currentWriteClientId, type ExchangeCredential } from '../store/catalog-credentials';

// Catalog tokens: the catalog's POST /v1/oauth/tokens forwards the client
// credentials here, because identity alone signs tokens. The audience is the
// catalog_url, so the control plane refuses these tokens, and the catalog
// refuses control-plane ones.

export const CATALOG_TOKEN_LIFETIME_SECONDS = 3600;

export interface CatalogTokenDeps {
  prisma: Db;
  signingKeys: SigningKeys;
  config: { baseUrl: string; catalogUrl: string };
}

/** Client credentials for a token: 429 past the wrong-secret limit, 401 `invalid_client` for a wrong, revoked or dead one. */
export async function exchangeCatalogCredential(
  d: CatalogTokenDeps, limiter: WrongSecretLimiter, c: { clientId: string; clientSecret: string; ip: string },
) {
  // The secret is compared only under a reserved wrong-secret point (see
  // WrongSecretLimiter.judge), so concurrent guesses cannot outrun the limit.
  let found: ExchangeCredential | null = null;
  const judged = await limiter.judge(c.clientId, c.ip, async () => {
    found = await credentialForExchange(d.prisma, c.clientId);
    return found !== null && secretMatches(c.clientSecret, found.secretHash);
  });
  if (judged.verdict === 'refused') throw rateLimited(judged.retryAfterSeconds);
  const cred = found as ExchangeCredential | null;
  if (judged.verdict === 'wrong' || !cred) throw new HttpError(401, 'invalid_client', 'unknown client or wrong secret');
  if (cred.revoked || !cred.live) throw new HttpError(401, 'invalid_client', 'this catalog credential is no longer valid');
  return mint(d, c.clientId, cred.warehouseId, cred.access);
}

/**
 * The control plane's table routes act through the catalog as the
 * warehouse's own identity: a token for its current read/write credential,
 * minted without the secret (which only the credential's holders have).
 */
export async function warehouseCatalogToken(d: CatalogTokenDeps, warehouseId: string) {
  const clientId = await currentWriteClientId(d.prisma, warehouseId);
  if (!clientId) throw new HttpError(404, 'warehouse_not_found', `warehouse ${warehouseId} has no live read/write credential`);
  return mint(d, clientId, warehouseId, 'write');
}

async function mint(d: CatalogTokenDeps, clientId: string, warehouseId: string, access: string) {
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
