import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import { CurrentSigner, secretMatches, type WrongSecretLimiter } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { Db } from '@floe/db';
import { Keyring } from '@floe/db/sealed';
import { HttpError, rateLimited } from '@floe/http';
import { credentialForExchange, currentWriteClientId, type ExchangeCredential } from './credential-records';

// Catalog tokens, minted in the process that needs one with the current
// signing key (packages/auth's CurrentSigner): the catalog's POST
// /v1/oauth/tokens exchanges a credential's secret for one; the control
// plane's table routes, the roller and the maintenance worker act as the
// warehouse itself. The audience is the catalog_url, so the control plane
// refuses these tokens, and the catalog refuses control-plane ones.

export const CATALOG_TOKEN_LIFETIME_SECONDS = 3600;

export interface CatalogTokenDeps {
  prisma: Db;
  signer: CurrentSigner;
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
 * minted without the secret (which only the credential's holders have);
 * null when the warehouse has none (deleted, being deleted, or unfinished).
 */
export async function warehouseCatalogToken(d: CatalogTokenDeps, warehouseId: string) {
  const clientId = await currentWriteClientId(d.prisma, warehouseId);
  return clientId ? mint(d, clientId, warehouseId, 'write', true) : null;
}

/**
 * `floe`: the token is Floe's own (a control-plane route, a roll, a
 * maintenance run), minted here without any secret, never by the exchange:
 * the catalog leaves the audit of those acts to the deployable that did them
 * and audits only what engines do.
 */
async function mint(d: CatalogTokenDeps, clientId: string, warehouseId: string, access: string, floe = false) {
  const signer = await d.signer.get();
  const token = await new SignJWT({ kind: 'catalog', warehouse_id: warehouseId, access, ...(floe ? { floe: true } : {}) })
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

/**
 * The warehouse token source a deployable's catalog client mints through
 * (packages/catalog-client WarehouseTokenSource): the current signing key,
 * opened with the deployment's data keys and reread as identity's signers do.
 */
export function warehouseTokenSource(prisma: Db, config: Pick<FloeConfig, 'baseUrl' | 'catalogUrl' | 'dataKeys' | 'signerCacheSeconds'>) {
  const d: CatalogTokenDeps = { prisma, signer: new CurrentSigner(prisma, new Keyring(config.dataKeys), config.signerCacheSeconds * 1000), config };
  return (warehouseId: string) => warehouseCatalogToken(d, warehouseId);
}
