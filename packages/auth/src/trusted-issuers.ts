import { createRemoteJWKSet, decodeJwt, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import type { TrustedIssuer } from '@floe/config';
import { HttpError } from '@floe/http';

// Bearer tokens from the identity providers the deployment trusts
// (Authentication 1; FLOE_TRUSTED_ISSUERS and FLOE_TRUSTED_AUDIENCES). The
// token's `iss` is read unverified only to pick the issuer; an issuer not
// configured is never fetched, so an attacker-chosen `iss` makes the server
// fetch nothing. A configured issuer's keys come from its OpenID Connect
// discovery document (whose `issuer` must be the configured one exactly) and
// its `jwks_uri`. The algorithm list is explicit and asymmetric only: that is
// what refuses `alg: none` and the key-confusion token (HS256 keyed with the
// issuer's public key), whatever the token's header says.

/** Asymmetric signatures only: never HS* (a public key as an HMAC secret) nor none. Every token of an outside issuer is checked with these (a sign-in provider's ID tokens too). */
export const OUTSIDE_ISSUER_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA'];

const DISCOVERY_TTL_MS = 60 * 60_000;
const RETRY_AFTER_FAILURE_MS = 30_000;
const FETCH_TIMEOUT_MS = 5_000;
/** jose's own defaults: a key set is refetched after ten minutes, and for an unknown kid at most every 30 s. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
const JWKS_COOLDOWN_MS = 30_000;
const CLOCK_TOLERANCE_SECONDS = 30;
const VERIFIED_TOKENS_MAX = 20_000;

export interface TrustedIssuerClaims extends JWTPayload {
  iss: string;
  sub: string;
  exp: number;
}

/** The one thing read of a deployable's logger: an issuer that cannot be reached is a warning an operator should see. */
export interface WarningLog {
  warn(message: string, meta: Record<string, unknown>): unknown;
}

export interface TrustedIssuersOptions {
  /** Floe's own issuer (base_url): never treated as an outside one, whatever the configuration says. */
  selfIssuer: string;
  logger: WarningLog;
  /** Tests shorten these; the defaults are the deployment's. */
  timings?: Partial<{ discoveryTtlMs: number; retryAfterFailureMs: number; jwksMaxAgeMs: number; jwksCooldownMs: number }>;
}

interface IssuerKeys {
  jwksUri: string;
  remote: ReturnType<typeof createRemoteJWKSet>;
  getKey: JWTVerifyGetKey;
  discoveredAt: number;
}

interface IssuerState {
  trusted: TrustedIssuer;
  keys: IssuerKeys | null;
  /** Until when nothing is fetched from this issuer, after a fetch of it failed. */
  quietUntil: number;
  discovering: Promise<void> | null;
}

/** A fetch from the issuer failed: its tokens cannot be judged now (not the token's fault). */
class IssuerKeysUnavailable extends Error {}

export class TrustedIssuers {
  private readonly issuers = new Map<string, IssuerState>();
  /** Tokens whose signature and claims were checked, by their exact text, until `until`. */
  private readonly verified = new Map<string, { claims: TrustedIssuerClaims; until: number }>();
  private readonly timings: Required<NonNullable<TrustedIssuersOptions['timings']>>;

  constructor(trusted: TrustedIssuer[], private readonly opts: TrustedIssuersOptions) {
    for (const t of trusted) if (t.issuer !== opts.selfIssuer) this.issuers.set(t.issuer, { trusted: t, keys: null, quietUntil: 0, discovering: null });
    this.timings = {
      discoveryTtlMs: DISCOVERY_TTL_MS, retryAfterFailureMs: RETRY_AFTER_FAILURE_MS, jwksMaxAgeMs: JWKS_MAX_AGE_MS, jwksCooldownMs: JWKS_COOLDOWN_MS,
      ...opts.timings,
    };
  }

  /** The trusted issuer a JWT names, read unverified only to route it; null for Floe's own, an untrusted or an unreadable one. */
  issuerOf(token: string): string | null {
    if (this.issuers.size === 0) return null;
    let iss: unknown;
    try {
      iss = decodeJwt(token).iss;
    } catch {
      return null;
    }
    return typeof iss === 'string' && this.issuers.has(iss) ? iss : null;
  }

  /** Signature against the issuer's published keys, issuer, audience, expiry and subject; or a 401 saying which failed. */
  async verify(token: string, issuer: string): Promise<TrustedIssuerClaims> {
    const known = this.verified.get(token);
    if (known && known.until > Date.now()) return known.claims;
    const state = this.issuers.get(issuer);
    if (!state) throw refusal('the access token is not valid here');
    let claims: TrustedIssuerClaims;
    try {
      const getKey = await this.keysOf(state);
      ({ payload: claims } = await jwtVerify<TrustedIssuerClaims>(token, getKey, {
        issuer,
        audience: state.trusted.audiences,
        algorithms: OUTSIDE_ISSUER_ALGORITHMS,
        requiredClaims: ['sub', 'exp'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
      }));
    } catch (err) {
      throw refusalOf(err, issuer);
    }
    if (typeof claims.sub !== 'string' || !claims.sub) throw refusal('the access token is not accepted: its "sub" claim is not valid');
    // Remembered no longer than the issuer's key set is: a key the issuer withdraws stops its tokens when the set is next fetched.
    if (this.verified.size >= VERIFIED_TOKENS_MAX) this.verified.clear();
    this.verified.set(token, { claims, until: Math.min(claims.exp * 1000, Date.now() + this.timings.jwksMaxAgeMs) });
    return claims;
  }

  /** The issuer's key resolver, discovering it first (again after an hour); nothing is fetched within 30 s of a failed fetch. */
  private async keysOf(state: IssuerState): Promise<JWTVerifyGetKey> {
    const now = Date.now();
    if (state.keys && now - state.keys.discoveredAt < this.timings.discoveryTtlMs) return state.keys.getKey;
    if (now >= state.quietUntil) {
      state.discovering ??= this.discover(state).finally(() => { state.discovering = null; });
      // A rediscovery that fails keeps the keys already held: the issuer's keys outlive a blip of its discovery endpoint.
      await state.discovering.catch(() => undefined);
    }
    if (!state.keys) throw new IssuerKeysUnavailable();
    return state.keys.getKey;
  }

  private async discover(state: IssuerState): Promise<void> {
    const { issuer } = state.trusted;
    let jwksUri: string;
    try {
      const res = await fetch(`${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`, {
        redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' },
      });
      if (res.status !== 200) throw new Error(`discovery answered ${res.status}`);
      const doc = (await res.json()) as { issuer?: unknown; jwks_uri?: unknown };
      // OpenID Connect Discovery 4.3: a document naming another issuer is not this issuer's.
      if (doc.issuer !== issuer) throw new Error(`discovery names the issuer ${JSON.stringify(doc.issuer)}, not the configured one`);
      if (typeof doc.jwks_uri !== 'string' || !/^https?:$/.test(new URL(doc.jwks_uri).protocol)) throw new Error('discovery gives no http(s) jwks_uri');
      jwksUri = doc.jwks_uri;
    } catch (err) {
      this.failed(state, 'discovery', err);
      throw err;
    }
    if (state.keys?.jwksUri === jwksUri) {
      state.keys.discoveredAt = Date.now();
      return;
    }
    // Kept for as long as the jwks_uri stays the same: jose refetches the set after jwksMaxAgeMs, and at once (at most every
    // jwksCooldownMs) when a token names a kid it does not hold, which is how a key rotated at the issuer is taken up.
    const remote = createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: FETCH_TIMEOUT_MS, cacheMaxAge: this.timings.jwksMaxAgeMs, cooldownDuration: this.timings.jwksCooldownMs,
    });
    state.keys = { jwksUri, remote, getKey: this.guarded(state, remote), discoveredAt: Date.now() };
  }

  /** jose's resolver, except that within the quiet time after a failed fetch only keys already held serve, and nothing is fetched. */
  private guarded(state: IssuerState, remote: ReturnType<typeof createRemoteJWKSet>): JWTVerifyGetKey {
    return async (header, token) => {
      if (Date.now() < state.quietUntil) {
        if (!remote.fresh) throw new IssuerKeysUnavailable();
        if (!remote.jwks()?.keys.some((k) => k.kid === header.kid)) throw new joseErrors.JWKSNoMatchingKey();
      }
      try {
        return await remote(header, token);
      } catch (err) {
        if (err instanceof joseErrors.JWKSNoMatchingKey || err instanceof joseErrors.JWKSMultipleMatchingKeys || err instanceof joseErrors.JOSENotSupported) throw err;
        this.failed(state, 'key set', err);
        throw new IssuerKeysUnavailable();
      }
    };
  }

  private failed(state: IssuerState, what: string, err: unknown): void {
    state.quietUntil = Date.now() + this.timings.retryAfterFailureMs;
    this.opts.logger.warn(`trusted issuer ${what} fetch failed`, { issuer: state.trusted.issuer, error: err instanceof Error ? err : String(err) });
  }
}

function refusal(message: string): HttpError {
  return new HttpError(401, 'unauthorized', message, {}, { 'WWW-Authenticate': 'Bearer error="invalid_token"' });
}

/** The reason a token of `issuer` was refused, in words. */
function refusalOf(err: unknown, issuer: string): HttpError {
  if (err instanceof IssuerKeysUnavailable) {
    return refusal(`the signing keys of ${issuer} could not be fetched, so its tokens cannot be checked now; try again in a minute`);
  }
  if (err instanceof joseErrors.JWTExpired) return refusal('the access token has expired');
  if (err instanceof joseErrors.JWTClaimValidationFailed) {
    if (err.claim === 'aud') return refusal(`the access token is not accepted: its audience is not one this deployment accepts for ${issuer}`);
    if (err.claim === 'nbf' || err.claim === 'iat') return refusal('the access token is not valid yet');
    if (err.reason === 'missing') return refusal(`the access token is not accepted: it has no "${err.claim}" claim`);
    return refusal(`the access token is not accepted: its "${err.claim}" claim is not valid`);
  }
  if (err instanceof joseErrors.JWTInvalid) return refusal('the access token is not accepted: its claims are not a JWT claims set');
  if (err instanceof joseErrors.JOSEError) {
    // A bad signature, an algorithm outside the list (none, HS*), a kid the issuer does not publish, a malformed JWS.
    return refusal(`the access token is not accepted: its signature does not verify against ${issuer}'s published keys`);
  }
  return refusal('the access token is not valid here');
}
