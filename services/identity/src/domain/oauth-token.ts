import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import type { SigningKeys } from '../signing/signing-keys';
import { codeHash } from './oauth-decision';
import { OAuthError } from './oauth-server';

// Spec: POST /oauth/token, `grant_type=authorization_code` — a public client
// exchanges the code an allowed consent minted, with the PKCE verifier, for
// an RS256 access token (`aud` the resource, `sub` the token record, `act.sub`
// the person, kind mcp, 15 minutes) and a refresh token (30 days) of a new
// family. A code is single use: it is spent by one conditional update after
// every check passed, and a second use revokes the family the first made.
// `refresh_token` is not built yet (400 unsupported_grant_type).

export const OAUTH_ACCESS_SECONDS = 900;
export const OAUTH_REFRESH_SECONDS = 30 * 86_400;

export interface TokenDeps {
  prisma: PrismaClient;
  signingKeys: SigningKeys;
  config: Pick<FloeConfig, 'baseUrl'>;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const invalidGrant = (why: string) => new OAuthError(400, 'invalid_grant', why);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 2048 ? v : undefined);

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; verifiers are 43–128 unreserved characters. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

export async function exchangeToken(d: TokenDeps, body: unknown) {
  const b = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;
  const grantType = str(b.grant_type);
  if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
  if (grantType !== 'authorization_code') throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported here (authorization_code)`);
  const [code, verifier, clientId, redirectUri] = [str(b.code), str(b.code_verifier), str(b.client_id), str(b.redirect_uri)];
  const missing = Object.entries({ code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri }).filter(([, v]) => !v).map(([k]) => k);
  if (missing.length) throw new OAuthError(400, 'invalid_request', `missing ${missing.join(', ')}`);
  const resource = b.resource === undefined ? undefined : str(b.resource);
  if (b.resource !== undefined && !resource) throw new OAuthError(400, 'invalid_request', 'resource must be the tool server URL');

  const hash = codeHash(code!);
  const c = await d.prisma.oAuthCode.findUnique({ where: { codeHash: hash } });
  if (!c || c.clientId !== clientId) throw invalidGrant('unknown authorization code, or one issued to another client');
  if (c.usedAt) {
    await revokeFamilyOf(d.prisma, hash, 'code_reused');
    throw invalidGrant('this authorization code was used already; what it produced is revoked');
  }
  if (c.expiresAt.getTime() <= Date.now()) throw invalidGrant('the authorization code expired (10 minutes); start again');
  if (c.redirectUri !== redirectUri) throw invalidGrant('redirect_uri does not match the authorization request');
  if (!pkceMatches(verifier!, c.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge (S256)');
  if (resource !== undefined && resource !== c.resource) throw new OAuthError(400, 'invalid_target', 'resource does not match the authorization request');
  const record = await d.prisma.principal.findUnique({ where: { id: c.agentId }, select: { status: true } });
  if (record?.status !== 'active') throw invalidGrant('the token record this code was for is revoked');

  // act: spend the code and make its family in one transaction, so a rival use that loses the spend (it waits on the row) finds the family to revoke
  const id = `ogr_${randomBytes(16).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  const now = Date.now();
  const won = await d.prisma.$transaction(async (tx) => {
    const spent = await tx.oAuthCode.updateMany({ where: { codeHash: hash, usedAt: null }, data: { usedAt: new Date(now) } });
    if (spent.count !== 1) return false;
    await tx.oAuthGrant.create({
      data: {
        id, codeHash: hash, clientId: c.clientId, agentId: c.agentId, personId: c.personId, orgId: c.orgId, resource: c.resource, scope: c.scope,
        refreshHash: sha256(secret), expiresAt: new Date(now + OAUTH_REFRESH_SECONDS * 1000),
      },
    });
    return true;
  });
  if (!won) {
    await revokeFamilyOf(d.prisma, hash, 'code_reused');
    throw invalidGrant('this authorization code was used already; what it produced is revoked');
  }
  const access = await mintAccessToken(d, { grantId: id, agentId: c.agentId, personId: c.personId, clientId: c.clientId, resource: c.resource, scope: c.scope });
  return {
    access_token: access, token_type: 'Bearer', expires_in: OAUTH_ACCESS_SECONDS,
    refresh_token: `ort_${id}_${secret}`, refresh_expires_in: OAUTH_REFRESH_SECONDS, scope: c.scope,
  };
}

/** A second use of a code: the family it made (and so every token of it) is revoked. */
async function revokeFamilyOf(prisma: PrismaClient, hash: string, reason: string): Promise<void> {
  await prisma.oAuthGrant.updateMany({ where: { codeHash: hash, revokedAt: null }, data: { revokedAt: new Date(), revokeReason: reason } });
}

async function mintAccessToken(d: TokenDeps, t: { grantId: string; agentId: string; personId: string; clientId: string; resource: string; scope: string }): Promise<string> {
  const signer = await d.signingKeys.currentSigner();
  return new SignJWT({ kind: 'mcp', act: { sub: t.personId }, scope: t.scope, client_id: t.clientId, sid: t.grantId })
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'at+jwt' })
    .setIssuer(d.config.baseUrl)
    .setSubject(t.agentId)
    .setAudience(t.resource)
    .setIssuedAt()
    .setExpirationTime(`${OAUTH_ACCESS_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
}
