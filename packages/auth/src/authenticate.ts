import { createHash } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { Redis } from 'ioredis';
import type { RequestHandler } from 'express';
import type { TrustedIssuer } from '@floe/config';
import { HttpError, rateLimited, unauthorized, type Caller, type SqlClient } from '@floe/http';
import { agentMakers } from './agent-makers';
import { looksLikeApiKey, parseApiKey, secretMatches } from './api-key';
import { CredentialCache } from './credential-cache';
import { KeySet } from './key-set';
import { WrongSecretLimiter, type Judgement } from './wrong-secret-limiter';
import { CONTROL_TOKEN_AUDIENCE_OF, type ControlTokenClaims } from './token-claims';
import { TrustedIssuers, type WarningLog } from './trusted-issuers';

const VERIFIED_TOKENS_MAX = 20_000;
const KNOWN_GOOD_KEYS_MAX = 20_000;
const TOO_MANY_WRONG = 'too many wrong secrets for this key from this address; try again later';

type PrincipalStatus = 'active' | 'suspended' | 'deleted';
/** A login session's standing, as its access tokens are judged (a session not found is revoked). */
type SessionState = 'live' | 'revoked' | 'expired';
type Kind = Caller['kind'];

interface KeyRecord {
  secretHash: string;
  revoked: boolean;
  principalId: string;
  kind: Kind;
  email: string | null;
  status: PrincipalStatus;
  /** An agent whose maker no longer stands (see creatorRevoked below); judged with the key, cached with it. */
  creatorRevoked?: boolean;
}

interface PrincipalRecord {
  kind: Kind;
  email: string | null;
  status: PrincipalStatus;
  /** Whether the API key a token was minted from has been revoked since (for an OAuth access token: its family, or its person's standing). */
  keyRevoked: boolean;
  /** An agent whose maker no longer stands (see creatorRevoked below). */
  creatorRevoked?: boolean;
}

/** The person a trusted issuer's subject is linked to (external_identities). */
interface LinkedPerson {
  principalId: string;
  email: string | null;
  status: PrincipalStatus;
}

export interface AuthenticatorOptions {
  db: SqlClient;
  redis: Redis;
  /** Issuer and audience of control-plane tokens: the deployment's base_url. */
  baseUrl: string;
  redisPrefix: string;
  /**
   * The tool server's URL (FLOE_MCP_URL): OAuth access tokens carry it as
   * audience, and the control plane accepts them too (Authentication 1).
   */
  oauthResource?: string;
  /** Records an API key's use (packages/accounts recordKeyUse: the accounts aggregate writes api_keys). */
  recordKeyUse: (keyId: string) => Promise<unknown>;
  /** Outside issuers whose tokens act as the person their subject is linked to (config.trustedIssuers). */
  trustedIssuers: TrustedIssuer[];
  /** Where a trusted issuer that cannot be reached is reported. */
  logger: WarningLog;
}

/**
 * Resolves a control-plane credential (an API key itself, a Floe JWT issued
 * for the control plane, or a trusted issuer's token for a linked person) to
 * the caller, and refuses every credential whose standing forbids it with the
 * spec's codes.
 */
export class Authenticator {
  readonly keys: KeySet;
  private readonly limiter: WrongSecretLimiter;
  private readonly keyCache: CredentialCache<KeyRecord | null>;
  private readonly principalCache: CredentialCache<PrincipalRecord | null>;
  private readonly sessionCache: CredentialCache<SessionState>;
  private readonly linkCache: CredentialCache<LinkedPerson | null>;
  private readonly trustedIssuers: TrustedIssuers;
  private readonly lastUseWritten = new Map<string, number>();
  /** Tokens whose signature was checked, by their exact text. Standing is still checked on every request. */
  private readonly verified = new Map<string, ControlTokenClaims>();
  /**
   * API keys this process has judged right, by fingerprint, with the stored
   * hash they matched. Such a key is accepted without taking a wrong-secret
   * point, so a correct key costs the one Redis round trip it always did;
   * only a key not seen right before pays the reservation (two more round
   * trips, once per process). A hit proves nothing a guess could use: only
   * keys already shown to be right are in here.
   */
  private readonly knownGood = new Map<string, string>();
  /** Judgements under way, by fingerprint: a burst of one right key on a cold process takes one point, not one each. */
  private readonly judging = new Map<string, Promise<Judgement>>();

  constructor(private readonly opts: AuthenticatorOptions) {
    this.keys = new KeySet(opts.db);
    this.limiter = new WrongSecretLimiter(opts.redis, opts.redisPrefix);
    this.keyCache = new CredentialCache(opts.redis, opts.redisPrefix);
    this.principalCache = new CredentialCache(opts.redis, opts.redisPrefix);
    this.sessionCache = new CredentialCache(opts.redis, opts.redisPrefix);
    this.linkCache = new CredentialCache(opts.redis, opts.redisPrefix);
    this.trustedIssuers = new TrustedIssuers(opts.trustedIssuers, { selfIssuer: opts.baseUrl, logger: opts.logger });
  }

  /** An API key as presented to POST /v1/tokens or as a bearer credential. */
  async apiKey(token: string, ip: string): Promise<Caller> {
    const parsed = parseApiKey(token);
    if (!parsed) throw invalidApiKey();
    // One round trip for both the credential epoch and this key's wrong-secret count.
    const [epochValue, failures] = await this.opts.redis.mget(this.keyCache.epochKey(), this.limiter.counterKey(parsed.keyId, ip));
    const epoch = epochValue ?? '0';
    if (WrongSecretLimiter.isBlocked(failures)) {
      throw rateLimited(await this.limiter.retryAfterSeconds(parsed.keyId, ip), TOO_MANY_WRONG);
    }

    let rec = this.keyCache.get(parsed.keyId, epoch);
    if (rec === undefined) {
      rec = await this.withCreatorStanding(await this.loadKey(parsed.keyId));
      this.keyCache.set(parsed.keyId, epoch, rec);
    }
    const right = await this.secretIsRight(token, parsed, rec, ip);
    if (!rec || !right) throw invalidApiKey();
    refuseByStanding(rec.status, rec.revoked, 'this API key has been revoked');
    if (rec.creatorRevoked) throw creatorRevoked();
    this.touch(parsed.keyId);
    return { principalId: rec.principalId, kind: rec.kind, email: rec.email, via: 'api_key', keyId: parsed.keyId, sessionId: null };
  }

  /**
   * Whether the key's secret is right, comparing it only under a reserved
   * wrong-secret point (WrongSecretLimiter.judge) unless this exact key was
   * judged right before. An unknown key id still goes through judge with a
   * comparison that fails, so guessing key ids is limited the same way.
   */
  private async secretIsRight(token: string, parsed: { keyId: string; secret: string }, rec: KeyRecord | null, ip: string): Promise<boolean> {
    const fp = fingerprint(token);
    if (rec && this.knownGood.get(fp) === rec.secretHash) return true;
    const pending = this.judging.get(fp);
    if (pending) {
      const earlier = await pending.catch(() => null);
      if (earlier?.verdict === 'right' && rec && this.knownGood.get(fp) === rec.secretHash) return true;
      // A wrong or refused twin is no verdict on this attempt: it takes its own point below.
    }
    const judging = this.limiter.judge(parsed.keyId, ip, () => rec !== null && secretMatches(parsed.secret, rec.secretHash));
    this.judging.set(fp, judging);
    let j: Judgement;
    try {
      j = await judging;
    } finally {
      if (this.judging.get(fp) === judging) this.judging.delete(fp);
    }
    if (j.verdict === 'refused') throw rateLimited(j.retryAfterSeconds, TOO_MANY_WRONG);
    if (j.verdict === 'wrong' || !rec) return false;
    if (this.knownGood.size >= KNOWN_GOOD_KEYS_MAX) this.knownGood.clear();
    this.knownGood.set(fp, rec.secretHash);
    return true;
  }

  /** A control-plane JWT: signature against the published keys, issuer, audience, expiry, then the principal's standing. */
  async token(token: string): Promise<Caller> {
    // A token verified before is Floe's own: the hot path pays one map lookup here, and decodes nothing.
    if (!this.verified.has(token)) {
      const issuer = this.trustedIssuers.issuerOf(token);
      if (issuer) return this.trustedIssuerToken(token, issuer);
    }
    let claims: ControlTokenClaims;
    try {
      claims = await this.verifyToken(token);
    } catch (err) {
      const expired = err instanceof joseErrors.JWTExpired;
      throw new HttpError(401, 'unauthorized', expired ? 'the access token has expired' : 'the access token is not valid here', {},
        { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    const principalId = claims.sub;
    if (!principalId) throw unauthorized('the access token names no principal');
    const oauth = this.oauthOf(claims);
    const keyId = oauth ? null : claims.key_id ?? null;
    const epoch = await this.principalCache.currentEpoch();
    const cacheKey = oauth ? `${principalId}:oauth:${oauth.familyId}` : `${principalId}:${keyId ?? ''}`;
    let rec = this.principalCache.get(cacheKey, epoch);
    if (rec === undefined) {
      rec = oauth ? await this.loadOAuthRecord(principalId, oauth.familyId) : await this.withCreatorStanding(await this.loadPrincipal(principalId, keyId), principalId);
      this.principalCache.set(cacheKey, epoch, rec);
    }
    if (!rec) throw unauthorized('the access token names no principal');
    if (oauth) {
      // A revoked token record (suspended) or family is the 401 a tool host answers by authorizing again.
      if (rec.status !== 'active' || rec.keyRevoked) throw revokedOAuthToken();
      return { principalId, kind: rec.kind, email: rec.email, via: 'token', keyId: null, sessionId: null, oauth };
    }
    refuseByStanding(rec.status, rec.keyRevoked, 'the API key this token was minted from has been revoked');
    if (rec.creatorRevoked) throw creatorRevoked();
    if (claims.sid && !keyId) await this.requireLiveSession(principalId, claims.sid, epoch);
    return { principalId, kind: rec.kind, email: rec.email, via: 'token', keyId, sessionId: claims.sid ?? null };
  }

  /**
   * A trusted issuer's token acts as the person its subject is linked to (by
   * signing in once with that provider), while that person stands. Such a
   * token never carries a key, a session or OAuth grants of Floe's. A link
   * (or its absence) is cached like any standing: making or removing a link
   * bumps the credential epoch, or a process keeps its old answer up to a minute.
   */
  private async trustedIssuerToken(token: string, issuer: string): Promise<Caller> {
    const { sub } = await this.trustedIssuers.verify(token, issuer);
    const epoch = await this.linkCache.currentEpoch();
    const cacheKey = `ext:${issuer}:${sub}`;
    let person = this.linkCache.get(cacheKey, epoch);
    if (person === undefined) {
      person = await this.loadLinkedPerson(issuer, sub);
      this.linkCache.set(cacheKey, epoch, person);
    }
    if (!person) {
      throw new HttpError(401, 'unauthorized', `no Floe account is linked to this subject of ${issuer}: sign in once with that provider on the login page to link it`, {},
        { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
    }
    refuseByStanding(person.status, false, ''); // no key behind it, so no revoked-key message to give
    return { principalId: person.principalId, kind: 'human', email: person.email, via: 'token', keyId: null, sessionId: null };
  }

  /**
   * A login session's access token (`sid`, no key) stands while its session
   * does. Logout, deleting the session, a password reset or change and a
   * reused refresh token revoke it and bump the epoch, so the token stops at
   * its next request, not when its 15 minutes end.
   */
  private async requireLiveSession(principalId: string, sessionId: string, epoch: string): Promise<void> {
    const key = `${principalId}:${sessionId}`;
    let state = this.sessionCache.get(key, epoch);
    if (state === undefined) {
      // Raw over pg: every session token's standing check, a named prepared statement.
      const { rows } = await this.opts.db.query({
        name: 'auth_session',
        text: `SELECT CASE WHEN revoked_at IS NOT NULL THEN 'revoked' WHEN expires_at <= now() THEN 'expired' ELSE 'live' END AS state
                 FROM sessions WHERE id = $1 AND principal_id = $2`,
        values: [sessionId, principalId],
      });
      state = (rows[0]?.state ?? 'revoked') as SessionState;
      this.sessionCache.set(key, epoch, state);
    }
    if (state === 'live') return;
    throw new HttpError(401, state === 'expired' ? 'session_expired' : 'session_revoked',
      state === 'expired' ? 'this login session has expired; log in again' : 'this login session was ended (logout, a password reset or change, or a reused refresh token); log in again',
      {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }

  /** The OAuth facts of an access token for the tool server (audience the resource); null for a control-plane token. */
  private oauthOf(claims: ControlTokenClaims): Caller['oauth'] | null {
    const forResource = this.opts.oauthResource !== undefined && [claims.aud].flat().includes(this.opts.oauthResource);
    if (!forResource) {
      // OAuth access tokens are only ever minted for the resource.
      if (claims.kind === 'mcp' && claims.client_id) throw unauthorized('the access token is not valid here');
      return null;
    }
    if (claims.kind !== 'mcp' || !claims.sid || !claims.act?.sub || !claims.client_id || typeof claims.scope !== 'string') {
      throw unauthorized('the access token is not valid here');
    }
    return { familyId: claims.sid, personId: claims.act.sub, clientId: claims.client_id, scopes: claims.scope.split(' ').filter(Boolean) };
  }

  /** Any control-plane bearer credential. */
  async bearer(credential: string, ip: string): Promise<Caller> {
    if (looksLikeApiKey(credential)) return this.apiKey(credential, ip);
    if (credential.split('.').length === 3) return this.token(credential);
    // A catalog secret, send key or anything else: refused without saying what it is.
    throw unauthorized('this credential is not accepted here');
  }

  /** Express middleware: every request must carry a usable credential; sets req.caller. */
  requireCaller(): RequestHandler {
    return async (req, _res, next) => {
      const header = req.get('authorization') ?? '';
      const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
      if (!match) throw unauthorized('send Authorization: Bearer <API key or access token>');
      req.caller = await this.bearer(match[1], req.ip ?? 'unknown');
      next();
    };
  }

  /** Signature, issuer, audience and expiry; a token already verified is remembered until it expires. */
  private async verifyToken(token: string): Promise<ControlTokenClaims> {
    const known = this.verified.get(token);
    if (known && known.exp * 1000 > Date.now()) return known;
    const { payload } = await jwtVerify<ControlTokenClaims>(token, this.keys.getKey, {
      issuer: this.opts.baseUrl,
      audience: [CONTROL_TOKEN_AUDIENCE_OF(this.opts.baseUrl), ...(this.opts.oauthResource ? [this.opts.oauthResource] : [])],
      algorithms: ['RS256'],
    });
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.clear();
    this.verified.set(token, payload);
    return payload;
  }

  private async loadKey(keyId: string): Promise<KeyRecord | null> {
    // Raw over pg: every API-key request's lookup (bench/auth), a named prepared statement joining the principal.
    const { rows } = await this.opts.db.query({
      name: 'auth_api_key',
      text: `SELECT k.secret_hash, k.revoked_at IS NOT NULL AS revoked, p.id, p.kind, p.email, p.status
         FROM api_keys k JOIN principals p ON p.id = k.principal_id WHERE k.key_id = $1`,
      values: [keyId],
    });
    const r = rows[0];
    if (!r) return null;
    return { secretHash: r.secret_hash, revoked: r.revoked, principalId: r.id, kind: r.kind, email: r.email, status: r.status };
  }

  private async loadLinkedPerson(issuer: string, subject: string): Promise<LinkedPerson | null> {
    // Raw over pg: every request with a trusted issuer's token whose link is not cached, a named prepared statement joining the person.
    const { rows } = await this.opts.db.query({
      name: 'auth_external_identity',
      text: `SELECT p.id, p.email, p.status FROM external_identities x JOIN principals p ON p.id = x.principal_id
         WHERE x.issuer = $1 AND x.subject = $2 AND p.kind = 'human'`,
      values: [issuer, subject],
    });
    const r = rows[0];
    if (!r) return null;
    return { principalId: r.id, email: r.email, status: r.status };
  }

  private async loadPrincipal(principalId: string, keyId: string | null): Promise<PrincipalRecord | null> {
    // Raw over pg: every token request's standing check (bench/auth), a named prepared statement.
    const { rows } = await this.opts.db.query({
      name: 'auth_principal',
      text: `SELECT p.kind, p.email, p.status, (k.revoked_at IS NOT NULL) AS key_revoked
         FROM principals p LEFT JOIN api_keys k ON k.key_id = $2 AND k.principal_id = p.id WHERE p.id = $1`,
      values: [principalId, keyId],
    });
    const r = rows[0];
    if (!r) return null;
    return { kind: r.kind, email: r.email, status: r.status, keyRevoked: Boolean(r.key_revoked) };
  }

  /**
   * An OAuth token acts for the person who consented: it stands while its
   * record is active, its refresh family live, and that person still active
   * and a member of the record's organisation (a person who left, was
   * removed or deleted takes their tool hosts' access with them).
   */
  private async loadOAuthRecord(principalId: string, familyId: string): Promise<PrincipalRecord | null> {
    // Raw over pg: every tool-server request's standing check, the record, its refresh family and its person in one statement.
    const { rows } = await this.opts.db.query({
      name: 'auth_oauth_record',
      text: `SELECT p.kind, p.email, p.status, (g.id IS NULL OR g.revoked_at IS NOT NULL) AS family_revoked,
           EXISTS (SELECT 1 FROM principals h
                     JOIN memberships hm ON hm.principal_id = h.id
                     JOIN memberships rm ON rm.org_id = hm.org_id AND rm.principal_id = p.id
                    WHERE h.id = g.person_id AND h.status = 'active') AS person_present
         FROM principals p LEFT JOIN oauth_grants g ON g.id = $2 AND g.agent_id = p.id WHERE p.id = $1`,
      values: [principalId, familyId],
    });
    const r = rows[0];
    if (!r || r.kind !== 'mcp') return null;
    return { kind: r.kind, email: r.email, status: r.status, keyRevoked: Boolean(r.family_revoked) || !r.person_present };
  }

  /**
   * An agent stands only while every maker of its chain stands (agent-makers.ts):
   * a maker removed, leaving, suspended, deleted or (an agent) revoked stops it
   * at its next request, since each of those bumps the credential epoch.
   */
  private async withCreatorStanding<T extends { kind: Kind; principalId?: string }>(rec: T | null, principalId = rec?.principalId): Promise<T | null> {
    if (!rec || rec.kind !== 'agent' || !principalId) return rec;
    return { ...rec, creatorRevoked: (await agentMakers(this.opts.db, principalId)).some((m) => !m.stands) };
  }

  /** last_used_at is written at most once a minute per key per process: a write per request would cost more than the route. */
  private touch(keyId: string): void {
    const now = Date.now();
    if (now - (this.lastUseWritten.get(keyId) ?? 0) < 60_000) return;
    this.lastUseWritten.set(keyId, now);
    void this.opts.recordKeyUse(keyId).catch(() => undefined);
  }
}

/** A key's name in process memory: the key itself is not kept. */
function fingerprint(token: string): string {
  return createHash('sha256').update('floe known-good key\0').update(token).digest('base64url');
}

function revokedOAuthToken(): HttpError {
  return new HttpError(401, 'unauthorized', 'this access token no longer stands (its token record or authorization was revoked, or the person who allowed it left the organisation); authorize again', {},
    { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

function creatorRevoked(): HttpError {
  return new HttpError(403, 'creator_revoked', 'the person who made this agent (or the agent that made it) is no longer an active member of its organisation: it was removed, left, was suspended or deleted, or was revoked; the agent stops with it', {
    remedy: 'an admin of the organisation makes a new agent (POST /v1/orgs/{org_id}/agents)',
  });
}

function invalidApiKey(): HttpError {
  return new HttpError(401, 'invalid_api_key', 'the API key is not valid', {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

/**
 * A deleted account first (its keys are revoked too), then a revoked key (a
 * revoked agent is also suspended, and its next call is the 401 that says
 * the key is gone), then a suspension.
 */
function refuseByStanding(status: PrincipalStatus, keyRevoked: boolean, revokedMessage: string): void {
  if (status === 'deleted') {
    throw new HttpError(401, 'account_deleted', 'this account has been deleted', {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  }
  if (keyRevoked) throw new HttpError(401, 'api_key_revoked', revokedMessage, {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
  if (status === 'suspended') throw new HttpError(403, 'principal_suspended', 'this principal is suspended');
}
