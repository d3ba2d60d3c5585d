import { createHash, randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import * as oidc from 'openid-client';
import { bumpCredentialEpoch, OUTSIDE_ISSUER_ALGORITHMS } from '@floe/auth';
import { accountByEmail, credentialsOf, REAUTH_AFTER_SECONDS, insertPrincipal, markEmailVerified, newPrincipalId, refuseDisposableAddress } from '@floe/accounts';
import { onboardAccount } from '@floe/catalogs';
import { signInRedirectUri, TERMS, type FloeConfig, type SignInProvider } from '@floe/config';
import { withSessionLock } from '@floe/db/session-lock';
import { badRequest, conflict, forbidden, HttpError, notFound, writeAudit, type Caller } from '@floe/http';
import type { Logger } from '@floe/http';
import { linkCodeMail } from '../mail/messages';
import { deleteCode, putCode } from '../store/email-codes';
import { identitiesOf, identityBySubject, identityOfPersonAt, linkIdentity, touchIdentity, unlinkIdentity } from '../store/external-identities';
import { CODE_SECONDS, checkCode, codeHash, newCode, withCodeAdmitted } from './email-codes';
import { tooManyLoginAttempts, type PasswordLimitDeps } from './login';
import { requireStanding, sessionAfterPassword } from './login-second-step';
import { requireLoginSession, signedInAgain } from './reauth';
import { lakeOf, type PasswordSignupDeps } from './password-signup';

// Sign-in with an OpenID Connect provider (the spec's "Google sign-in
// routes", generic over every provider the deployment configures; the error
// codes keep the spec's Google names for every provider). The start hands
// the browser an authorization URL with state, nonce and PKCE, kept in Redis
// for ten minutes under the state's hash; the provider sends the browser back
// to the login page it started from, which posts the code to the callback.
// The callback spends the state, exchanges the code (openid-client checks the
// ID token: signature, issuer, audience, nonce), and then:
// - a subject linked to a person signs that person in (a second factor, or
//   an organisation requiring one, still asks for its step);
// - an address that belongs to an account not linked yet is linked only by a
//   code mailed to it (401 `email_code_required`, then POST /v1/auth/oidc/link):
//   a provider's word that an address is someone's does not hand over an
//   account that exists without it;
// - an address new to Floe makes an account without a password (the Terms
//   accepted at the start), with its organisation and `lake`, as a sign-up does.
// An ID token handed over directly (Google's sign-in button gives the page
// one) is the other way in: checked against the provider's published keys
// for Floe's client id, spent once, then the same three outcomes.

export type ProviderSignInDeps = Omit<PasswordSignupDeps, 'config'> & PasswordLimitDeps & { logger: Logger; config: PasswordSignupDeps['config'] & FloeConfig };

const STATE_SECONDS = 600;
/** A link token outlives its code, so a late code is told it expired (410) rather than that nothing waits (404). */
const LINK_TOKEN_SECONDS = 3 * CODE_SECONDS;
/** How long a provider's discovery document is kept. */
const DISCOVERY_SECONDS = 3600;
const NO_STORE = { 'Cache-Control': 'no-store' };

interface PendingSignIn {
  provider: string;
  redirectUri: string;
  codeVerifier: string;
  nonce: string;
  acceptTerms: boolean;
  /** A reauthentication of this session rather than a sign-in: the provider must sign in afresh the account linked to its person. */
  reauth?: { sessionId: string; principalId: string };
}

interface PendingLink {
  provider: string;
  issuer: string;
  subject: string;
  email: string;
  principalId: string;
  userAgent: string | null;
  ip: string | null;
}

interface ProviderIdentity {
  issuer: string;
  subject: string;
  email: string;
  name: string | null;
}

type Meta = { userAgent: string | null; ip: string | null };

const hashed = (secret: string) => createHash('sha256').update(secret).digest('hex');
const stateKey = (d: { config: Pick<FloeConfig, 'redisPrefix'> }, state: string) => `${d.config.redisPrefix}oidc:state:${hashed(state)}`;
const linkKey = (d: { config: Pick<FloeConfig, 'redisPrefix'> }, token: string) => `${d.config.redisPrefix}oidc:link:${hashed(token)}`;

function providerOf(d: { config: Pick<FloeConfig, 'signIn'> }, id: string): SignInProvider {
  const provider = d.config.signIn.providers.find((p) => p.id === id);
  if (!provider) throw notFound('not_found', `no sign-in provider \`${id}\` here; GET /v1/auth/config lists them`);
  return provider;
}

const unavailable = (provider: SignInProvider, why: string) =>
  new HttpError(502, 'google_unavailable', `${provider.name} did not answer as it should (${why}); try again shortly`, { provider: provider.id });

/** Each provider's discovered configuration, kept an hour; a failed discovery is not kept, so the next sign-in asks again. */
const discovered = new Map<string, { at: number; config: Promise<oidc.Configuration> }>();

async function configurationOf(d: { config: Pick<FloeConfig, 'env'> }, provider: SignInProvider): Promise<oidc.Configuration> {
  const kept = discovered.get(provider.id);
  if (kept && Date.now() - kept.at < DISCOVERY_SECONDS * 1000) return kept.config;
  // Plain http only for a development provider on this machine (the stack's own).
  const insecure = new URL(provider.issuer).protocol === 'http:' && d.config.env !== 'production';
  const config = oidc.discovery(new URL(provider.issuer), provider.clientId, undefined, oidc.ClientSecretBasic(provider.clientSecret), {
    timeout: 10, ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
  });
  discovered.set(provider.id, { at: Date.now(), config });
  try {
    return await config;
  } catch (err) {
    discovered.delete(provider.id);
    throw unavailable(provider, `its discovery document: ${(err as Error).message}`);
  }
}

/** POST /v1/auth/oidc/{provider}/start: where to send the browser. `origin` is the page's (the Origin header). */
export async function startProviderSignIn(d: ProviderSignInDeps, providerId: string, origin: string | null, ask: { acceptTerms: boolean }) {
  return authorizationAt(d, providerOf(d, providerId), origin, { acceptTerms: ask.acceptTerms }, {});
}

/**
 * POST /v1/auth/reauth/oidc/{provider}: a login session whose person signs
 * in with a provider reauthenticates there (Authentication 7), as another
 * holds its password or passkey: the provider is asked to sign the person in
 * afresh (`max_age=0`), and the callback checks it did so lately and for the
 * account linked to this person.
 */
export async function startProviderReauth(d: ProviderSignInDeps, caller: Caller, providerId: string, origin: string | null) {
  const sessionId = requireLoginSession(caller);
  const provider = providerOf(d, providerId);
  if (!(await identityOfPersonAt(d.prisma, caller.principalId, provider.issuer))) {
    throw notFound('not_found', `your account is not linked to ${provider.name}: confirm with your password or a passkey instead`);
  }
  return authorizationAt(d, provider, origin, { acceptTerms: false, reauth: { sessionId, principalId: caller.principalId } }, { max_age: '0' });
}

/** The authorization request of a sign-in or a reauthentication: its state kept in Redis, the URL to send the browser to. */
async function authorizationAt(d: ProviderSignInDeps, provider: SignInProvider, origin: string | null, purpose: Pick<PendingSignIn, 'acceptTerms' | 'reauth'>, params: Record<string, string>) {
  const from = origin ?? new URL(d.config.baseUrl).origin;
  if (!d.config.signIn.origins.includes(from)) {
    throw forbidden('origin_not_allowed', `a sign-in cannot start from ${from}: the provider would send the browser back to a page this deployment does not serve`, { allowed_origins: d.config.signIn.origins });
  }
  const config = await configurationOf(d, provider);
  const codeVerifier = oidc.randomPKCECodeVerifier();
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const redirectUri = signInRedirectUri(from);
  const url = oidc.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri, scope: 'openid email profile', state, nonce,
    code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier), code_challenge_method: 'S256', ...params,
  });
  const pending: PendingSignIn = { provider: provider.id, redirectUri, codeVerifier, nonce, ...purpose };
  await d.redis.set(stateKey(d, state), JSON.stringify(pending), 'EX', STATE_SECONDS);
  return {
    provider: { id: provider.id, name: provider.name },
    authorization_url: url.href,
    state,
    redirect_uri: redirectUri,
    expires_in: STATE_SECONDS,
    next: `open authorization_url; ${provider.name} sends the browser to redirect_uri with code and state: POST /v1/auth/oidc/${provider.id}/callback {state, code, iss}`,
  };
}

/**
 * The login's attempts per caller address (120 an hour) bound the answers a
 * provider did not vouch for: a spent budget is 429 before anything is asked
 * of the provider, and each refused answer (a state, code or ID token that
 * does not hold) takes an attempt. An answer the provider vouched for takes
 * none: the provider's own sign-in was the check, as a right password is a
 * login's.
 */
async function counted<T>(d: ProviderSignInDeps, ip: string | null, answer: () => Promise<T>): Promise<T> {
  const wait = await d.loginAttempts.spent(ip ?? 'unknown');
  if (wait !== null) throw tooManyLoginAttempts(d, wait);
  try {
    return await answer();
  } catch (err) {
    if (err instanceof HttpError && PROVIDER_REFUSALS.has(err.code)) await d.loginAttempts.take(ip ?? 'unknown');
    throw err;
  }
}

const PROVIDER_REFUSALS = new Set<string>(['invalid_state', 'invalid_google_code', 'invalid_id_token', 'invalid_google_token']);

/** The state's record, spent: one callback per start. */
async function spendState(d: ProviderSignInDeps, state: string): Promise<PendingSignIn | null> {
  const raw = await d.redis.getdel(stateKey(d, state));
  return raw ? JSON.parse(raw) as PendingSignIn : null;
}

/** What the provider answered to the code, as Floe's refusals: a provider that failed is 502; a code or ID token it or we refused is 401. */
function refusalOf(provider: SignInProvider, err: unknown): HttpError {
  if (err instanceof oidc.ResponseBodyError) {
    if (err.status >= 500) return unavailable(provider, `HTTP ${err.status} from its token endpoint`);
    return new HttpError(401, 'invalid_google_code', `${provider.name} refused the code (${err.error}): sign in again`, { provider: provider.id });
  }
  if (err instanceof oidc.AuthorizationResponseError) {
    return new HttpError(401, 'invalid_google_code', `${provider.name} answered ${err.error} instead of a code: sign in again`, { provider: provider.id });
  }
  if (err instanceof TypeError) return unavailable(provider, err.message);
  const code = (err as { code?: string }).code;
  if (code === 'OAUTH_RESPONSE_IS_NOT_CONFORM' || code === 'OAUTH_RESPONSE_IS_NOT_JSON') return unavailable(provider, (err as Error).message);
  return new HttpError(401, 'invalid_id_token', `the ID token from ${provider.name} does not hold (${(err as Error).message}): sign in again`, { provider: provider.id });
}

/** POST /v1/auth/oidc/{provider}/callback: the code for a session, a link to confirm, or a new account. */
export async function finishProviderSignIn(d: ProviderSignInDeps, req: Request, providerId: string, answer: { state: string; code: string; iss?: string }, meta: Meta) {
  const provider = providerOf(d, providerId);
  return counted(d, meta.ip, () => finishCallback(d, req, provider, answer, meta));
}

async function finishCallback(d: ProviderSignInDeps, req: Request, provider: SignInProvider, answer: { state: string; code: string; iss?: string }, meta: Meta) {
  const pending = await spendState(d, answer.state);
  if (!pending || pending.provider !== provider.id) {
    throw badRequest('invalid_state', 'this sign-in is not one this deployment started, or it was used or is over 10 minutes old: start again', { field: 'state' });
  }
  const config = await configurationOf(d, provider);
  const current = new URL(pending.redirectUri);
  current.searchParams.set('code', answer.code);
  current.searchParams.set('state', answer.state);
  if (answer.iss !== undefined) current.searchParams.set('iss', answer.iss);
  let claims: oidc.IDToken;
  try {
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: pending.codeVerifier, expectedState: answer.state, expectedNonce: pending.nonce, idTokenExpected: true,
      // A reauthentication wants a sign-in at the provider within the last ten minutes (its auth_time), not a session it kept.
      ...(pending.reauth ? { maxAge: REAUTH_AFTER_SECONDS } : {}),
    });
    claims = tokens.claims()!;
  } catch (err) {
    const refusal = refusalOf(provider, err);
    if (refusal.status === 502) d.logger.warn('sign-in provider failed', { provider: provider.id, error: (err as Error).message });
    throw refusal;
  }
  if (pending.reauth) return reauthenticatedBy(d, provider, claims, pending.reauth);
  return signInAs(d, req, provider, identityOf(provider, claims), pending, meta);
}

/** The provider signed in afresh the account linked to the session's person: the session signs in again. */
async function reauthenticatedBy(d: ProviderSignInDeps, provider: SignInProvider, claims: oidc.IDToken, r: { sessionId: string; principalId: string }) {
  const linked = await identityBySubject(d.prisma, claims.iss, claims.sub);
  if (!linked || linked.principalId !== r.principalId) {
    throw conflict('identity_conflict', `this ${provider.name} account is not the one linked to your Floe account: confirm with the one you sign in with`, { provider: provider.id });
  }
  await touchIdentity(d.prisma, linked.id);
  return signedInAgain(d, r.sessionId, r.principalId);
}

/** Who an ID token's claims name: 403 `email_not_verified` unless the provider vouches for the address; 400 `disposable_email` for a throwaway one. */
function identityOf(provider: SignInProvider, claims: JWTPayload & { iss: string; sub: string }): ProviderIdentity {
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (!email || claims.email_verified !== true) {
    throw forbidden('email_not_verified', `${provider.name} does not vouch for ${email ? `the address ${email}` : 'an address of this account'}: verify it there, or sign up with a password`);
  }
  refuseDisposableAddress(email);
  return { issuer: claims.iss, subject: claims.sub, email, name: typeof claims.name === 'string' ? claims.name.slice(0, 200) : null };
}

/** Each provider's published keys (jose refetches on a key id it does not hold: rotation). */
const providerKeys = new Map<string, ReturnType<typeof createRemoteJWKSet>>();

const invalidIdToken = (provider: SignInProvider, why: string) =>
  new HttpError(401, 'invalid_google_token', `this ID token is not one ${provider.name} issued to Floe for a sign-in now (${why}): sign in again`, { provider: provider.id });

/**
 * POST /v1/auth/oidc/{provider}/id-token: an ID token the page got from the
 * provider itself (Google's sign-in button), for Floe's client id. Checked
 * like the callback's (signature against the provider's keys, issuer,
 * audience, expiry, the page's nonce when it sent one) and accepted once: a
 * token seen before is refused until it expires.
 */
export async function signInWithIdToken(d: ProviderSignInDeps, req: Request, providerId: string, t: { idToken: string; nonce?: string; acceptTerms: boolean }, meta: Meta) {
  const provider = providerOf(d, providerId);
  return counted(d, meta.ip, () => signInByIdToken(d, req, provider, t, meta));
}

async function signInByIdToken(d: ProviderSignInDeps, req: Request, provider: SignInProvider, t: { idToken: string; nonce?: string; acceptTerms: boolean }, meta: Meta) {
  const jwksUri = (await configurationOf(d, provider)).serverMetadata().jwks_uri;
  if (!jwksUri) throw unavailable(provider, 'its discovery document names no jwks_uri');
  let keys = providerKeys.get(provider.id);
  if (!keys) providerKeys.set(provider.id, keys = createRemoteJWKSet(new URL(jwksUri), { timeoutDuration: 10_000 }));
  let claims: JWTPayload & { iss: string; sub: string; exp: number };
  try {
    ({ payload: claims } = await jwtVerify<{ iss: string; sub: string; exp: number }>(t.idToken, keys, {
      issuer: provider.issuer, audience: provider.clientId, algorithms: OUTSIDE_ISSUER_ALGORITHMS, requiredClaims: ['sub', 'exp', 'iat'], clockTolerance: 30,
    }));
  } catch (err) {
    if (err instanceof joseErrors.JWKSTimeout || err instanceof TypeError) {
      d.logger.warn('sign-in provider keys unreachable', { provider: provider.id, error: (err as Error).message });
      throw unavailable(provider, `its published keys: ${(err as Error).message}`);
    }
    throw invalidIdToken(provider, err instanceof joseErrors.JWTExpired ? 'it has expired' : (err as Error).message);
  }
  if (t.nonce !== undefined && claims.nonce !== t.nonce) throw invalidIdToken(provider, 'its nonce is not the one this page asked for');
  const secondsLeft = Math.max(1, claims.exp - Math.floor(Date.now() / 1000) + 30);
  if ((await d.redis.set(`${d.config.redisPrefix}oidc:id-token:${hashed(t.idToken)}`, '1', 'EX', secondsLeft, 'NX')) !== 'OK') {
    throw invalidIdToken(provider, 'it was used already');
  }
  return signInAs(d, req, provider, identityOf(provider, claims), { acceptTerms: t.acceptTerms }, meta);
}

async function signInAs(d: ProviderSignInDeps, req: Request, provider: SignInProvider, who: ProviderIdentity, pending: { acceptTerms: boolean }, meta: Meta) {
  const signedInWith = { provider: provider.id, issuer: who.issuer, email: who.email };
  const linked = await identityBySubject(d.prisma, who.issuer, who.subject);
  if (linked) {
    const person = await credentialsOf(d.prisma, linked.principalId);
    if (person && person.status !== 'deleted') {
      if (person.status === 'suspended') throw forbidden('principal_suspended', 'this account is suspended');
      await touchIdentity(d.prisma, linked.id);
      const session = await sessionAfterPassword(d, linked.principalId, { email: person.email, ...meta }, 'provider');
      return { ...session, signed_in_with: signedInWith, account_created: false };
    }
    // An erased account's link goes with it: the subject may make a new account.
    await unlinkIdentity(d.prisma, linked.id, linked.principalId);
    await linksChanged(d);
  }
  const existing = await accountByEmail(d.prisma, who.email);
  if (existing) {
    if (await identityOfPersonAt(d.prisma, existing.principalId, who.issuer)) {
      throw conflict('identity_conflict', `the Floe account of ${who.email} is linked to another ${provider.name} account: sign in with that one`, { provider: provider.id });
    }
    return askForLinkCode(d, provider, who, existing.principalId, meta);
  }
  if (!pending.acceptTerms) {
    throw badRequest('terms_required', `${who.email} has no Floe account yet: accept the Terms to make one (start again with accept_terms: true)`, { field: 'accept_terms', terms: TERMS });
  }
  return createAccount(d, req, provider, who, meta);
}

/** 401 `email_code_required`: a code mailed to the account's address, and the link token it is sent back with. */
async function askForLinkCode(d: ProviderSignInDeps, provider: SignInProvider, who: ProviderIdentity, principalId: string, meta: Meta): Promise<never> {
  const delivery = await withCodeAdmitted(d, { email: who.email, purpose: 'link', caller: meta.ip ?? 'unknown' }, async () => {
    const code = newCode();
    const sent = await d.mailer.send(linkCodeMail(who.email, code, CODE_SECONDS / 60, provider.name));
    await putCode(d.prisma, {
      email: who.email, purpose: 'link', codeHash: codeHash(who.email, code),
      details: { issuer: who.issuer, subject: who.subject, principal_id: principalId }, expiresAt: new Date(Date.now() + CODE_SECONDS * 1000),
    });
    await d.devCodes.keep(who.email, 'link', code);
    return sent;
  });
  const token = `lnk_${randomBytes(24).toString('hex')}`;
  const link: PendingLink = { provider: provider.id, issuer: who.issuer, subject: who.subject, email: who.email, principalId, ...meta };
  await d.redis.set(linkKey(d, token), JSON.stringify(link), 'EX', LINK_TOKEN_SECONDS);
  throw new HttpError(401, 'email_code_required', `a Floe account with ${who.email} exists: enter the code just mailed to it to link your ${provider.name} sign-in to it`, {
    link_token: token, email: who.email, delivery, expires_in: CODE_SECONDS, provider: provider.id,
    next: 'POST /v1/auth/oidc/link {link_token, code}',
  }, NO_STORE);
}

/** A link made or gone: every process drops the subjects it knew linked or not (a trusted issuer's tokens act by these links). */
const linksChanged = (d: Pick<ProviderSignInDeps, 'redis' | 'config'>) => bumpCredentialEpoch(d.redis, d.config.redisPrefix);

const noPendingCode = () => notFound('no_pending_code', 'no link is waiting for this token (it lasts 30 minutes, and a newer sign-in replaces it): sign in with the provider again');

/** POST /v1/auth/oidc/link: the mailed code links the provider's subject to the account, then signs in as with the provider. */
export async function linkWithEmailCode(d: ProviderSignInDeps, req: Request, l: { linkToken: string; code: string }, meta: Meta) {
  const raw = l.linkToken.startsWith('lnk_') ? await d.redis.get(linkKey(d, l.linkToken)) : null;
  if (!raw) throw noPendingCode();
  const link = JSON.parse(raw) as PendingLink;
  const outcome = await d.prisma.$transaction(async (tx) => {
    const check = await checkCode(tx, link.email, 'link', l.code, noPendingCode);
    if (!check.ok) return check;
    // A newer sign-in for this address replaced the code with its own subject's.
    if (check.code.details.subject !== link.subject || check.code.details.issuer !== link.issuer) return { ok: false as const, error: noPendingCode() };
    await deleteCode(tx, link.email, 'link');
    if (!(await linkIdentity(tx, { principalId: link.principalId, issuer: link.issuer, subject: link.subject, email: link.email }))) {
      return { ok: false as const, error: conflict('identity_conflict', 'this provider account, or this Floe account\'s link at the provider, was linked in the meantime: sign in with the provider again', { provider: link.provider }) };
    }
    await markEmailVerified(tx, link.principalId);
    return { ok: true as const };
  });
  if (!outcome.ok) throw outcome.error;
  await d.redis.del(linkKey(d, l.linkToken));
  await linksChanged(d);
  req.caller = { principalId: link.principalId, kind: 'human', email: link.email, via: 'token', keyId: null, sessionId: null };
  await writeAudit(d.db, req, { action: 'identity.link', targetType: 'principal', targetId: link.principalId, data: { provider: link.provider, issuer: link.issuer } });
  await requireStanding(d, link.principalId, noPendingCode);
  const session = await sessionAfterPassword(d, link.principalId, { email: link.email, ...meta }, 'provider');
  return { ...session, signed_in_with: { provider: link.provider, issuer: link.issuer, email: link.email }, linked: true as const };
}

/** A new person from the provider: no password, the address verified by the provider, the Terms accepted at the start; then onboarding as a sign-up. */
async function createAccount(d: ProviderSignInDeps, req: Request, provider: SignInProvider, who: ProviderIdentity, meta: Meta) {
  const made = await withSessionLock(d.db, `signup-verify:${who.email}`, async () => {
    const principal = await d.prisma.$transaction(async (tx) => {
      // An account made for this address while we waited is linked by its code like any other.
      if (await accountByEmail(tx, who.email)) return null;
      const p = await insertPrincipal(tx, { id: newPrincipalId(), kind: 'human', email: who.email, displayName: who.name, termsVersion: TERMS.version, emailVerified: true });
      if (!(await linkIdentity(tx, { principalId: p.principalId, issuer: who.issuer, subject: who.subject, email: who.email }))) {
        throw conflict('identity_conflict', `this ${provider.name} account was linked to a Floe account in the meantime: sign in again`, { provider: provider.id });
      }
      return p;
    });
    if (!principal) return null;
    const account = await onboardAccount(d, req, { principalId: principal.principalId, email: who.email, workspace: who.email.split('@')[0], pendingOrgId: null, engine: 'duckdb' });
    return { principal, account };
  }, { waitMs: 120_000 });
  if (!made) {
    const existing = await accountByEmail(d.prisma, who.email);
    if (!existing) throw conflict('identity_conflict', 'the account for this address changed in the meantime: sign in again', { provider: provider.id });
    return askForLinkCode(d, provider, who, existing.principalId, meta);
  }
  await linksChanged(d);
  req.caller = { principalId: made.principal.principalId, kind: 'human', email: who.email, via: 'token', keyId: null, sessionId: null };
  await writeAudit(d.db, req, { action: 'signup.complete', orgId: made.account.organization.org_id, targetType: 'principal', targetId: made.principal.principalId, data: { email: who.email, via: `oidc:${provider.id}`, terms_version: TERMS.version } });
  const session = await sessionAfterPassword(d, made.principal.principalId, { email: who.email, ...meta }, 'provider');
  return {
    ...session,
    signed_in_with: { provider: provider.id, issuer: who.issuer, email: who.email },
    account_created: true,
    warehouse: lakeOf(made.account),
  };
}

/** GET /v1/auth/identities: the person's links, with the provider each came from where the deployment still names it. */
export async function listIdentities(d: Pick<ProviderSignInDeps, 'prisma' | 'config'>, principalId: string) {
  const rows = await identitiesOf(d.prisma, principalId);
  return {
    identities: rows.map((r) => ({
      identity_id: r.id,
      provider: d.config.signIn.providers.find((p) => p.issuer === r.issuer)?.id ?? null,
      issuer: r.issuer,
      email: r.email,
      created_at: r.createdAt.toISOString(),
      last_used_at: r.lastUsedAt?.toISOString() ?? null,
    })),
  };
}

/**
 * DELETE /v1/auth/identities/{identity_id}: the link goes, unless it is the
 * account's only way in — no password and no other link (409
 * `password_required`: set a password first, by the reset mail).
 */
export async function unlinkOwnIdentity(d: Pick<ProviderSignInDeps, 'prisma' | 'config' | 'redis'>, principalId: string, identityId: string) {
  const mine = await identitiesOf(d.prisma, principalId);
  if (!mine.some((r) => r.id === identityId)) throw notFound('not_found', `no linked identity ${identityId} on your account`);
  const person = await credentialsOf(d.prisma, principalId);
  if (!person?.passwordHash && mine.length === 1) {
    throw conflict('password_required', 'this link is how you sign in: set a password first (POST /v1/auth/password/reset/start mails the link), then unlink it', {
      remedy: 'POST /v1/auth/password/reset/start',
    });
  }
  if (!(await unlinkIdentity(d.prisma, identityId, principalId))) throw notFound('not_found', `no linked identity ${identityId} on your account`);
  await linksChanged(d);
  return { identity_id: identityId, unlinked: true as const };
}
