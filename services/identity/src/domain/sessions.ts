import { randomBytes } from 'node:crypto';
import { hashSecret } from '@floe/auth';
import { TERMS } from '@floe/config';
import type { PrismaClient } from '@floe/db';
import { HttpError, notFound } from '@floe/http';
import { mintSessionToken } from '../signing/mint';
import type { SigningKeys } from '../signing/signing-keys';
import { firstOrganizationOf } from '../store/memberships';
import { credentialsOf } from '../store/principals';
import { insertSession, liveSessionsOf, revokeSession, rotateRefresh, sessionById } from '../store/sessions';

// Login sessions (spec: Session; Login and sessions): a 15-minute access
// token and a 30-day refresh token whose expiry slides and which is rotated
// on every refresh. A rotated-out token used again is a theft signal: the
// session is revoked (`refresh_reused`). Two refreshes racing with one token
// are not: within a few seconds of the rotation the loser is told
// `refresh_raced` and the session lives on.

export const REFRESH_SECONDS = 30 * 86_400;
/** How long after a rotation the token it replaced counts as racing rather than reused. */
export const RACE_SECONDS = 5;

export interface SessionDeps {
  prisma: PrismaClient;
  signingKeys: SigningKeys;
  config: { baseUrl: string };
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

/** POST /v1/auth/refresh: a new pair for the same session; one winner among refreshes racing with one token. */
export async function refreshSession(d: SessionDeps, refreshToken: string) {
  const m = TOKEN.exec(refreshToken);
  if (!m) throw refused('invalid_refresh_token', 'not a refresh token of this service');
  const [, sessionId, secret] = m;
  const s = await sessionById(d.prisma, sessionId);
  const presented = hashSecret(secret);
  if (!s || (s.refreshHash !== presented && s.previousRefreshHash !== presented)) throw refused('invalid_refresh_token', 'unknown refresh token');
  if (s.revokedAt) throw refused('session_revoked', 'this session was ended; log in again');
  if (s.expiresAt.getTime() <= Date.now()) throw refused('session_expired', 'this session has expired; log in again');
  if (s.refreshHash === presented) {
    const next = newRefresh(sessionId);
    if (await rotateRefresh(d.prisma, sessionId, presented, next.hash, new Date(Date.now() + REFRESH_SECONDS * 1000))) {
      return sessionAnswer(d, s.principalId, sessionId, next.token);
    }
    // Another refresh with the same token won between the read and the swap.
    throw refused('refresh_raced', 'another refresh with this token won; use the pair it answered');
  }
  // The token this session's last rotation replaced.
  const sinceRotation = s.rotatedAt ? (Date.now() - s.rotatedAt.getTime()) / 1000 : Infinity;
  if (sinceRotation <= RACE_SECONDS) throw refused('refresh_raced', 'another refresh with this token won; use the pair it answered');
  await revokeSession(d.prisma, sessionId, 'refresh_reused');
  throw refused('refresh_reused', 'this refresh token was already used: the session is ended, log in again');
}

/** POST /v1/auth/logout: by refresh token, or the caller's own session. */
export async function logout(d: SessionDeps, by: { refreshToken?: string; sessionId?: string | null; principalId?: string }) {
  let sessionId: string | null = null;
  if (by.refreshToken) {
    const m = TOKEN.exec(by.refreshToken);
    const s = m ? await sessionById(d.prisma, m[1]) : null;
    const h = m ? hashSecret(m[2]) : '';
    if (!s || (s.refreshHash !== h && s.previousRefreshHash !== h)) throw refused('invalid_refresh_token', 'unknown refresh token');
    sessionId = s.id;
  } else if (by.sessionId) {
    sessionId = by.sessionId;
  }
  if (!sessionId) throw new HttpError(400, 'missing_field', 'send {"refresh_token"} or call with the session\'s access token', { field: 'refresh_token' });
  await revokeSession(d.prisma, sessionId, 'logout');
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
export async function endSession(d: Pick<SessionDeps, 'prisma'>, principalId: string, sessionId: string) {
  const s = await sessionById(d.prisma, sessionId);
  if (!s || s.principalId !== principalId || s.revokedAt) throw notFound('session_not_found', `no session ${sessionId} of yours`);
  await revokeSession(d.prisma, sessionId, 'deleted', principalId);
  return { session_id: sessionId, revoked: true };
}
