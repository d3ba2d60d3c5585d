import { randomBytes, randomUUID, createHash } from 'node:crypto';
import { jwtVerify, SignJWT } from 'jose';
import type { Redis } from 'ioredis';
import { bumpCredentialEpoch, hashSecret, type KeySet } from '@floe/auth';
import type { FloeConfig } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { writeAudit, type SqlClient } from '@floe/http';
import type { SigningKeys } from '../signing/signing-keys';
import { oauthClientExists } from '../store/oauth-clients';
import {
  oauthCodeByHash, oauthFamilyById, recordIsActive, revokeOAuthFamilies, rotateFamilyRefresh, spendCodeIntoFamily, type OAuthFamilyRecord,
} from '../store/oauth-grants';
import { isRetiredOf } from '../store/retired-refresh';
import { OAuthError, SCOPES } from './oauth-server';
import { placeInChain, type ChainPlace } from './refresh-chain';

// Spec: POST /oauth/token and POST /oauth/revoke.
// `authorization_code`: a public client exchanges the code an allowed consent
// minted, with the PKCE verifier, for an RS256 access token (`aud` the
// resource, `sub` the token record, `act.sub` the person, kind mcp, 15
// minutes) and a refresh token (30 days, sliding) of a new family. A code is
// single use: spent by one conditional update after every check passed; a
// second use revokes the family the first made.
// `refresh_token`: rotates the family's refresh token (one winner among
// racing refreshes; the losers within a few seconds are told so, as login
// sessions do: refresh-chain.ts) and answers a new pair; any rotated-out token
// of the family presented later, at any age, is theft and revokes the family.
// A narrower `scope` is honoured for the access token; the family keeps what
// was consented (RFC 6749 §6).
// Revoking a family bumps the credential epoch, so its access tokens stop
// working on the control plane at the next request, not 15 minutes later.

export const OAUTH_ACCESS_SECONDS = 900;
export const OAUTH_REFRESH_SECONDS = 30 * 86_400;

export interface TokenDeps {
  prisma: PrismaClient;
  db: SqlClient;
  redis: Redis;
  signingKeys: SigningKeys;
  config: Pick<FloeConfig, 'baseUrl' | 'redisPrefix' | 'oauth'>;
}

const REFRESH = /^ort_(ogr_[0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
const invalidGrant = (why: string) => new OAuthError(400, 'invalid_grant', why);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 && v.length <= 2048 ? v : undefined);

/** RFC 7636 S256: BASE64URL(SHA256(verifier)) equals the challenge; verifiers are 43–128 unreserved characters. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9\-._~]{43,128}$/.test(verifier)) return false;
  return createHash('sha256').update(verifier).digest('base64url') === challenge;
}

const asFields = (body: unknown) => (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as Record<string, unknown>;

export async function exchangeToken(d: TokenDeps, body: unknown) {
  const b = asFields(body);
  const grantType = str(b.grant_type);
  if (!grantType) throw new OAuthError(400, 'invalid_request', 'grant_type is required');
  if (grantType === 'authorization_code') return exchangeCode(d, b);
  if (grantType === 'refresh_token') return refreshFamily(d, b);
  throw new OAuthError(400, 'unsupported_grant_type', `grant_type ${grantType} is not supported here (authorization_code, refresh_token)`);
}

function required<K extends string>(b: Record<string, unknown>, names: K[]): Record<K, string> {
  const out = {} as Record<K, string>;
  const missing: string[] = [];
  for (const n of names) {
    const v = str(b[n]);
    if (v) out[n] = v;
    else missing.push(n);
  }
  if (missing.length) throw new OAuthError(400, 'invalid_request', `missing ${missing.join(', ')}`);
  return out;
}

/** `resource` when sent: a string, and the one the consent was for. */
function checkResource(b: Record<string, unknown>, consented: string): void {
  if (b.resource === undefined) return;
  const resource = str(b.resource);
  if (!resource) throw new OAuthError(400, 'invalid_request', 'resource must be the tool server URL');
  if (resource !== consented) throw new OAuthError(400, 'invalid_target', 'resource does not match the authorization request');
}

/**
 * 401 invalid_client for a client this server cannot know: a `dcr_` id with no
 * registration (never made, or pruned) or something that is neither that nor
 * a metadata document's URL. A known client's code or token of another is
 * invalid_grant.
 */
async function requireKnownClient(d: TokenDeps, clientId: string): Promise<void> {
  const known = clientId.startsWith('dcr_') ? await oauthClientExists(d.prisma, clientId) : URL.canParse(clientId) && /^https?:$/.test(new URL(clientId).protocol);
  if (!known) throw new OAuthError(401, 'invalid_client', 'unknown client: client_id is a registered dcr_ id or the URL of a client metadata document');
}

async function exchangeCode(d: TokenDeps, b: Record<string, unknown>) {
  const { code, code_verifier: verifier, client_id: clientId, redirect_uri: redirectUri } = required(b, ['code', 'code_verifier', 'client_id', 'redirect_uri']);
  await requireKnownClient(d, clientId);
  const hash = hashSecret(code);
  const c = await oauthCodeByHash(d.prisma, hash);
  if (!c || c.clientId !== clientId) throw invalidGrant('unknown authorization code, or one issued to another client');
  if (c.usedAt) return codeReused(d, hash);
  if (c.expiresAt.getTime() <= Date.now()) throw invalidGrant('the authorization code expired (10 minutes); start again');
  if (c.redirectUri !== redirectUri) throw invalidGrant('redirect_uri does not match the authorization request');
  if (!pkceMatches(verifier, c.codeChallenge)) throw invalidGrant('code_verifier does not match the code_challenge (S256)');
  checkResource(b, c.resource);
  if (!(await recordIsActive(d.prisma, c.agentId))) throw invalidGrant('the token record this code was for is revoked');

  const id = `ogr_${randomBytes(16).toString('hex')}`;
  const secret = randomBytes(32).toString('base64url');
  const opened = await spendCodeIntoFamily(d.prisma, { id, code: c, refreshHash: hashSecret(secret), expiresAt: new Date(Date.now() + OAUTH_REFRESH_SECONDS * 1000) });
  if (!opened) return codeReused(d, hash);
  return pair(d, { id, agentId: c.agentId, personId: c.personId, clientId: c.clientId, resource: c.resource }, c.scope, secret);
}

/** A second use of a code: the family it made (and so every token of it) is revoked. */
async function codeReused(d: TokenDeps, hash: string): Promise<never> {
  await revokeFamilies(d, { codeHash: hash }, 'code_reused');
  throw invalidGrant('this authorization code was used already; what it produced is revoked');
}

async function refreshFamily(d: TokenDeps, b: Record<string, unknown>) {
  const { refresh_token: token, client_id: clientId } = required(b, ['refresh_token', 'client_id']);
  await requireKnownClient(d, clientId);
  const held = await refreshTokenFamily(d, token);
  if (!held) throw invalidGrant('not a refresh token of this service, or one it does not know');
  const { f, presented } = held;
  if (f.clientId !== clientId) throw invalidGrant('this refresh token was issued to another client');
  if (f.revokedAt) throw invalidGrant('this refresh token was revoked; authorize again');
  if (f.expiresAt.getTime() <= Date.now()) throw invalidGrant('this refresh token expired (30 days unused); authorize again');
  checkResource(b, f.resource);
  const scope = narrowedScope(b, f.scope);

  if (held.place === 'raced') throw invalidGrant('another refresh with this token won a moment ago; use the pair it answered');
  if (held.place === 'reused') {
    // A rotated-out token of the family: a copy someone kept.
    await revokeFamilies(d, { id: f.id }, 'refresh_reused');
    throw invalidGrant('this refresh token was used already: every token of this authorization is revoked; authorize again');
  }
  if (!(await recordIsActive(d.prisma, f.agentId))) throw invalidGrant('the token record this authorization was for is revoked');
  const next = randomBytes(32).toString('base64url');
  if (!(await rotateFamilyRefresh(d.prisma, f.id, presented, hashSecret(next), new Date(Date.now() + OAUTH_REFRESH_SECONDS * 1000)))) {
    throw invalidGrant('another refresh with this token won a moment ago; use the pair it answered');
  }
  return pair(d, f, scope, next);
}

/** RFC 6749 §6: a refresh may ask for less than was consented, never more; nothing asked is everything consented. */
function narrowedScope(b: Record<string, unknown>, consented: string): string {
  if (b.scope === undefined) return consented;
  const asked = typeof b.scope === 'string' ? b.scope.split(' ').filter(Boolean) : [];
  const held = new Set(consented.split(' '));
  if (!asked.length) throw new OAuthError(400, 'invalid_scope', 'scope, when sent, names at least one scope');
  const extra = asked.filter((s) => !held.has(s));
  if (extra.length) {
    const known = extra.every((s) => s in SCOPES);
    throw new OAuthError(400, 'invalid_scope', known ? `${extra.join(' ')} was not consented; a refresh can only narrow the scope (${consented})` : `unknown scope ${extra.join(' ')}`);
  }
  return [...new Set(asked)].join(' ');
}

/**
 * Ends families, then bumps the credential epoch so their access tokens stop
 * at the next request, and audits each one ended (`oauth.revoke` with the
 * reason: a reused code or refresh token is a theft signal an admin should see).
 */
async function revokeFamilies(d: TokenDeps, which: { id: string } | { codeHash: string }, reason: 'code_reused' | 'refresh_reused' | 'revoked_by_client'): Promise<void> {
  const ended = await revokeOAuthFamilies(d.prisma, which, reason);
  if (!ended.length) return;
  await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
  for (const f of ended) {
    await writeAudit(d.db, null, {
      action: 'oauth.revoke', actorId: f.agentId, actorKind: 'mcp', orgId: f.orgId, targetType: 'oauth_family', targetId: f.id,
      data: { reason, client_id: f.clientId, on_behalf_of: f.personId },
    });
  }
}

async function pair(d: TokenDeps, f: Pick<OAuthFamilyRecord, 'id' | 'agentId' | 'personId' | 'clientId' | 'resource'>, scope: string, secret: string) {
  const access = await mintAccessToken(d, f, scope);
  return {
    access_token: access, token_type: 'Bearer', expires_in: OAUTH_ACCESS_SECONDS,
    refresh_token: `ort_${f.id}_${secret}`, refresh_expires_in: OAUTH_REFRESH_SECONDS, scope,
  };
}

async function mintAccessToken(d: TokenDeps, f: Pick<OAuthFamilyRecord, 'id' | 'agentId' | 'personId' | 'clientId' | 'resource'>, scope: string): Promise<string> {
  const signer = await d.signingKeys.currentSigner();
  return new SignJWT({ kind: 'mcp', act: { sub: f.personId }, scope, client_id: f.clientId, sid: f.id })
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'at+jwt' })
    .setIssuer(d.config.baseUrl)
    .setSubject(f.agentId)
    .setAudience(f.resource)
    .setIssuedAt()
    .setExpirationTime(`${OAUTH_ACCESS_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
}

/**
 * POST /oauth/revoke (RFC 7009): a refresh token (any of its family's chain)
 * or an access token of this service ends its family; a rotated-out refresh
 * token is audited as the theft signal it is (`refresh_reused`). Anything
 * else (none, unknown, already revoked, another client's) changes nothing,
 * and the answer is the same either way (the spec: always `{}`).
 */
export async function revokeToken(d: TokenDeps & { keys: KeySet }, body: unknown): Promise<Record<string, never>> {
  const b = asFields(body);
  const token = str(b.token);
  if (!token) return {};
  const clientId = str(b.client_id);
  const refresh = REFRESH.test(token);
  const held = refresh ? await refreshTokenFamily(d, token) : null;
  const f = refresh ? held?.f : await accessTokenFamily(d, token);
  if (f && (!clientId || clientId === f.clientId)) await revokeFamilies(d, { id: f.id }, held?.place === 'reused' ? 'refresh_reused' : 'revoked_by_client');
  return {};
}

/**
 * The family a refresh token of ours belongs to, the hash presented, and its
 * place in the family's chain (current, racing, or a rotated-out one reused);
 * null for anything else.
 */
async function refreshTokenFamily(d: TokenDeps, token: string): Promise<{ f: OAuthFamilyRecord; presented: string; place: ChainPlace } | null> {
  const m = REFRESH.exec(token);
  if (!m) return null;
  const f = await oauthFamilyById(d.prisma, m[1]);
  if (!f) return null;
  const presented = hashSecret(m[2]);
  const place = await placeInChain(f, presented, () => isRetiredOf(d.prisma, presented, { familyId: f.id }));
  return place ? { f, presented, place } : null;
}

/** The family an access token of ours names (`sid`). */
async function accessTokenFamily(d: TokenDeps & { keys: KeySet }, token: string): Promise<OAuthFamilyRecord | null> {
  let sid: unknown;
  try {
    // An expired access token still names its family: revoking it ends the refresh tokens too.
    const { payload } = await jwtVerify(token, d.keys.getKey, {
      issuer: d.config.baseUrl, audience: d.config.oauth.mcpUrl, algorithms: ['RS256'], clockTolerance: OAUTH_REFRESH_SECONDS,
    });
    sid = payload.kind === 'mcp' ? payload.sid : undefined;
  } catch {
    return null;
  }
  return typeof sid === 'string' ? oauthFamilyById(d.prisma, sid) : null;
}
