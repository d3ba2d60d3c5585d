import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { credentialsOf } from '@floe/accounts';
import { bumpCredentialEpoch, hashSecret } from '@floe/auth';
import { TERMS } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { HttpError, notFound } from '@floe/http';
import { mintSessionToken } from '../signing/mint';
import type { SigningKeys } from '../signing/signing-keys';
import { firstOrganizationOf } from '../store/memberships';
import { isRetiredOf } from '../store/retired-refresh';
import { insertSession, liveSessionsOf, revokeSession, rotateRefresh, sessionById, type SessionRecord } from '../store/sessions';
import { placeInChain, type ChainPlace } from './refresh-chain';

// Login sessions (spec: Session; Login and sessions): a 15-minute access
// token and a 30-day refresh token whose expiry slides and which is rotated
// on every refresh. Any rotated-out token of the session used again, at any
// age, is a theft signal: the session is revoked (`refresh_reused`). Two
// refreshes racing with one token are not: within a few seconds of the
// rotation the loser is told `refresh_raced` and the session lives on
// (refresh-chain.ts). Every revocation bumps the credential epoch, so the
// session's access tokens stop at their next request (packages/auth checks a
// session token's standing per epoch), not when their 15 minutes end.

export const REFRESH_SECONDS = 30 * 86_400;

export interface SessionDeps {
  prisma: PrismaClient;
  redis: Redis;
  signingKeys: SigningKeys;
  config: { baseUrl: string; redisPrefix: string };
}

/** After sessions were revoked: their access tokens stop at their next request. */
export async function sessionsEnded(d: Pick<SessionDeps, 'redis' | 'config'>, count: number): Promise<void> {
  if (count > 0) await bumpCredentialEpoch(d.redis, d.config.redisPrefix);
}

/** Revokes one session and stops its access tokens; whether it was live. */
async function endOne(d: Pick<SessionDeps, 'prisma' | 'redis' | 'config'>, sessionId: string, reason: string, principalId?: string): Promise<boolean> {
  const ended = await revokeSession(d.prisma, sessionId, reason, principalId);
  await sessionsEnded(d, ended ? 1 : 0);
  return ended;
}

const TOKEN = /^rt_(ses_[0-9a-f]{24})_([0-9a-f]{64})$/;

function newRefresh(sessionId: string): { token: string; hash: string } {
  const secret = randomBytes(32).toString('hex');
  return { token: `rt_${sessionId}_${secret}`, hash: hashSecret(secret) };
}

const refused = (code: 'invalid_refresh_token' | 'refresh_reused' | 'refresh_raced' | 'session_revoked' | 'session_expired', message: string) => new HttpError(401, code, message);

/** The spec's session shape: the token pair and who the person is. */
async function sessionAnswer(d: SessionDeps, principalId: string, sessionId: string, refreshToken: string) {
  const person = await credentialsOf(d.prisma, principalId);
  const access = await mintSessionToken(d.signingKeys, d.config.baseUrl, { principalId, email: person?.email ?? null, sessionId });
  const organization = await firstOrganizationOf(d.prisma, principalId);
  return {
    access_token: access.token,
    token_type: 'Bearer',
    expires_in: access.expiresIn,
    refresh_token: refreshToken,
    refresh_expires_in: REFRESH_SECONDS,
    session_id: sessionId,
    principal_id: principalId,
    principal: { principal_id: principalId, kind: 'human', email: person?.email ?? null },
    organization,
    terms: { version: TERMS.version, accepted: person?.termsVersion === TERMS.version, url: TERMS.url },
    next: organization ? ['GET /v1/warehouses — your catalogs'] : ['POST /v1/onboard — an organisation, a project and the catalog `lake`'],
  };
}

/** A new session for a person who just proved who they are. */
export async function openSession(d: SessionDeps, principalId: string, meta: { userAgent: string | null; ip: string | null }) {
  const id = `ses_${randomBytes(12).toString('hex')}`;
  const refresh = newRefresh(id);
  await insertSession(d.prisma, { id, principalId, refreshHash: refresh.hash, expiresAt: new Date(Date.now() + REFRESH_SECONDS * 1000), userAgent: meta.userAgent, ip: meta.ip });
  return sessionAnswer(d, principalId, id, refresh.token);
}

/** The session a refresh token names and the token's place in its chain; null when the token is not one of its chain. */
async function heldBy(d: Pick<SessionDeps, 'prisma'>, refreshToken: string): Promise<{ s: SessionRecord; presented: string; place: ChainPlace } | null> {
  const m = TOKEN.exec(refreshToken);
  if (!m) return null;
  const [, sessionId, secret] = m;
  const s = await sessionById(d.prisma, sessionId);
  if (!s) return null;
  const presented = hashSecret(secret);
  const place = await placeInChain(s, presented, () => isRetiredOf(d.prisma, presented, { sessionId }));
  return place ? { s, presented, place } : null;
}

/** The theft signal: the session ends (its access tokens with it) and the caller is told why. */
async function reused(d: SessionDeps, sessionId: string): Promise<never> {
  await endOne(d, sessionId, 'refresh_reused');
  throw refused('refresh_reused', 'this refresh token was already used: the session is ended, log in again');
}

/** POST /v1/auth/refresh: a new pair for the same session; one winner among refreshes racing with one token. */
export async function refreshSession(d: SessionDeps, refreshToken: string) {
  const held = await heldBy(d, refreshToken);
  if (!held) throw refused('invalid_refresh_token', 'unknown refresh token');
  const { s, presented, place } = held;
  if (s.revokedAt) throw refused('session_revoked', 'this session was ended; log in again');
  if (s.expiresAt.getTime() <= Date.now()) throw refused('session_expired', 'this session has expired; log in again');
  if (place === 'reused') return reused(d, s.id);
  if (place === 'current') {
    const next = newRefresh(s.id);
    if (await rotateRefresh(d.prisma, s.id, presented, next.hash, new Date(Date.now() + REFRESH_SECONDS * 1000))) {
      return sessionAnswer(d, s.principalId, s.id, next.token);
    }
    // Another refresh with the same token won between the read and the swap.
  }
  throw refused('refresh_raced', 'another refresh with this token won; use the pair it answered');
}

/**
 * POST /v1/auth/logout: by refresh token, or the caller's own session. The
 * current token (or the one a rotation replaced moments ago) logs out; an
 * older token of the chain is the theft signal, as at refresh: the session
 * ends all the same, answered 401 `refresh_reused`.
 */
export async function logout(d: SessionDeps, by: { refreshToken?: string; sessionId?: string | null }) {
  let sessionId: string | null = null;
  if (by.refreshToken) {
    const held = await heldBy(d, by.refreshToken);
    if (!held) throw refused('invalid_refresh_token', 'unknown refresh token');
    if (held.place === 'reused') return reused(d, held.s.id);
    sessionId = held.s.id;
  } else if (by.sessionId) {
    sessionId = by.sessionId;
  }
  if (!sessionId) throw new HttpError(400, 'missing_field', 'send {"refresh_token"} or call with the session\'s access token', { field: 'refresh_token' });
  await endOne(d, sessionId, 'logout');
  return { revoked: true, session_id: sessionId };
}

/** GET /v1/auth/sessions. */
export async function listSessions(d: Pick<SessionDeps, 'prisma'>, principalId: string, currentSessionId: string | null) {
  const sessions = (await liveSessionsOf(d.prisma, principalId)).map((s) => ({
    session_id: s.id, created_at: s.createdAt.toISOString(), last_used_at: s.lastUsedAt.toISOString(), expires_at: s.expiresAt.toISOString(),
    user_agent: s.userAgent, ip: s.ip, current: s.id === currentSessionId,
  }));
  return { sessions, count: sessions.length };
}

/** DELETE /v1/auth/sessions/{id}: the caller's own sessions only (another's is 404 alike). */
export async function endSession(d: Pick<SessionDeps, 'prisma' | 'redis' | 'config'>, principalId: string, sessionId: string) {
  const s = await sessionById(d.prisma, sessionId);
  if (!s || s.principalId !== principalId || s.revokedAt) throw notFound('session_not_found', `no session ${sessionId} of yours`);
  await endOne(d, sessionId, 'deleted', principalId);
  return { session_id: sessionId, revoked: true };
}
