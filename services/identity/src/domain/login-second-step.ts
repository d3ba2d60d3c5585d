import { createHash, randomBytes } from 'node:crypto';
import { credentialsOf, organizationsRequiringSecondFactor, secondFactorRequirement } from '@floe/accounts';
import { forbidden, HttpError } from '@floe/http';
import { signingOptions, verifySigning } from './passkeys';
import {
  confirmTotpEnrolment, factorsOf, hasSecondFactor, proveSecondFactor, remainingBackupCodes, startTotpEnrolment, type FactorProof, type SecondFactorDeps,
} from './second-factor';
import { openSession, type SessionDeps } from './sessions';

// What follows a right password (login, reset, the welcome link's first
// password) or a sign-in with a provider (provider-sign-in.ts): a person with a second factor gets 401 `mfa_required` and a
// five-minute `mfa_token` instead of a session, and finishes with a code
// (POST /v1/auth/login/mfa); a person without one in an organisation whose
// policy requires it gets 401 `mfa_enrolment_required` and a ten-minute
// `enrol_token`, which enrols the authenticator app without a session and
// finishes the login when the enrolment is confirmed. Both tokens are
// random, kept in Redis by their SHA-256 with who and from where, and spent
// by the step that opens the session.

export const MFA_TOKEN_SECONDS = 300;
export const ENROL_TOKEN_SECONDS = 600;

export type SecondStepDeps = SessionDeps & SecondFactorDeps;

type Kind = 'mfa' | 'enrol';

interface PendingLogin {
  principalId: string;
  email: string | null;
  userAgent: string | null;
  ip: string | null;
}

const SECONDS: Record<Kind, number> = { mfa: MFA_TOKEN_SECONDS, enrol: ENROL_TOKEN_SECONDS };
const PREFIX: Record<Kind, string> = { mfa: 'mfa_', enrol: 'enr_' };

const keyOf = (d: Pick<SessionDeps, 'config'>, kind: Kind, token: string) =>
  `${d.config.redisPrefix}login-step:${kind}:${createHash('sha256').update(token).digest('hex')}`;

async function issue(d: Pick<SessionDeps, 'redis' | 'config'>, kind: Kind, p: PendingLogin): Promise<string> {
  const token = `${PREFIX[kind]}${randomBytes(24).toString('hex')}`;
  await d.redis.set(keyOf(d, kind, token), JSON.stringify(p), 'EX', SECONDS[kind]);
  return token;
}

async function pendingLogin(d: Pick<SessionDeps, 'redis' | 'config'>, kind: Kind, token: string): Promise<PendingLogin | null> {
  if (!token.startsWith(PREFIX[kind])) return null;
  const raw = await d.redis.get(keyOf(d, kind, token));
  return raw ? JSON.parse(raw) as PendingLogin : null;
}

/** Spends a token: true for the one request that did. */
async function spend(d: Pick<SessionDeps, 'redis' | 'config'>, kind: Kind, token: string): Promise<boolean> {
  return (await d.redis.del(keyOf(d, kind, token))) === 1;
}

const NO_STORE = { 'Cache-Control': 'no-store' };
const invalidMfaToken = () => new HttpError(401, 'invalid_mfa_token', 'this login step is not valid (it lasts 5 minutes and opens one session): log in again with your password');
const invalidEnrolToken = () => new HttpError(401, 'invalid_enrol_token', 'this enrolment token is not valid (it lasts 10 minutes and finishes one login): log in again with your password');

/**
 * A session for a person who just gave the right password, unless a second
 * factor is on (401 `mfa_required`) or an organisation requires one the
 * person lacks (401 `mfa_enrolment_required`).
 */
export async function sessionAfterPassword(
  d: SecondStepDeps, principalId: string, meta: { email: string | null; userAgent: string | null; ip: string | null }, firstStep: 'password' | 'provider' = 'password',
) {
  const pending: PendingLogin = { principalId, email: meta.email, userAgent: meta.userAgent, ip: meta.ip };
  const factors = await factorsOf(d, principalId);
  if (factors.totp || factors.passkeys) {
    const token = await issue(d, 'mfa', pending);
    const methods = [...(factors.totp ? ['totp', 'backup_code'] : []), ...(factors.passkeys ? ['passkey'] : [])];
    throw new HttpError(401, 'mfa_required', `${firstStep === 'password' ? 'the password is right' : 'the provider signed you in'}; this account also asks for its second factor: send ${factors.totp ? 'a code from the authenticator app (or a backup code)' : 'a passkey\'s answer'} with the mfa_token`, {
      mfa_token: token, expires_in: MFA_TOKEN_SECONDS, methods,
      next: factors.totp ? 'POST /v1/auth/login/mfa {mfa_token, code}' : 'POST /v1/auth/login/mfa/passkey-options {mfa_token}, then POST /v1/auth/login/mfa {mfa_token, passkey}',
    }, NO_STORE);
  }
  const requiredBy = await organizationsRequiringSecondFactor(d.prisma, principalId);
  if (requiredBy.length) {
    const token = await issue(d, 'enrol', pending);
    const { whoRequire, organizations } = secondFactorRequirement(requiredBy);
    throw new HttpError(401, 'mfa_enrolment_required', `${whoRequire} a second factor of its members: enrol an authenticator app to finish signing in`, {
      enrol_token: token, expires_in: ENROL_TOKEN_SECONDS,
      organizations,
      next: 'POST /v1/auth/mfa/totp/start {enrol_token}, then POST /v1/auth/mfa/totp/confirm {enrol_token, code}',
    }, NO_STORE);
  }
  return openSession(d, principalId, meta);
}

/** 403 `mfa_enrolment_required` for a person without a factor while an organisation of theirs requires one (POST /v1/tokens). */
export async function requireFactorWherePolicyAsks(d: Pick<SecondStepDeps, 'prisma' | 'logger'>, principalId: string): Promise<void> {
  const requiredBy = await organizationsRequiringSecondFactor(d.prisma, principalId);
  if (!requiredBy.length || await hasSecondFactor(d, principalId)) return;
  const { whoRequire, organizations } = secondFactorRequirement(requiredBy);
  throw forbidden('mfa_enrolment_required', `${whoRequire} a second factor of its members: sign in at /app (or POST /v1/auth/login) and enrol one, then use this key again`, {
    organizations,
    remedy: 'POST /v1/auth/login, then the enrolment it asks for',
  });
}

/** The person a login step continues must still be there (else `gone`, the step's own refusal) and not suspended (403). */
export async function requireStanding(d: Pick<SessionDeps, 'prisma'>, principalId: string, gone: () => HttpError): Promise<void> {
  const person = await credentialsOf(d.prisma, principalId);
  if (!person || person.status === 'deleted') throw gone();
  if (person.status === 'suspended') throw forbidden('principal_suspended', 'this account is suspended');
}

/** POST /v1/auth/login/mfa: the second step's code for the session. */
export async function finishLoginWithSecondFactor(d: SecondStepDeps, token: string, proof: FactorProof) {
  const pending = await pendingLogin(d, 'mfa', token);
  if (!pending) throw invalidMfaToken();
  await requireStanding(d, pending.principalId, invalidMfaToken);
  const method = await proveSecondFactor(d, pending.principalId, proof);
  if (!(await spend(d, 'mfa', token))) throw invalidMfaToken();
  const session = await openSession(d, pending.principalId, pending);
  return { ...session, second_factor: { method, backup_codes_left: await remainingBackupCodes(d, pending.principalId) } };
}

/** POST /v1/auth/login/mfa/passkey-options: a ceremony with the account's passkeys for the second step. */
export async function passkeyOptionsForSecondStep(d: SecondStepDeps, token: string) {
  const pending = await pendingLogin(d, 'mfa', token);
  if (!pending) throw invalidMfaToken();
  return signingOptions(d, 'factor', pending.principalId);
}

/** POST /v1/auth/passkeys/login: a passkey alone signs in (it is a second factor in itself). */
export async function loginWithPasskey(d: SecondStepDeps, ceremonyId: string, response: Parameters<typeof verifySigning>[3], meta: { userAgent: string | null; ip: string | null }) {
  const principalId = await verifySigning(d, 'login', ceremonyId, response);
  await requireStanding(d, principalId, () => new HttpError(401, 'invalid_passkey', 'the passkey\'s account no longer exists'));
  const session = await openSession(d, principalId, meta);
  return { ...session, second_factor: { method: 'passkey' as const } };
}

/** Who an enrolment token enrols (POST /v1/auth/mfa/totp/start and confirm without a session). */
export async function enrolmentOf(d: SecondStepDeps, token: string): Promise<PendingLogin> {
  const pending = await pendingLogin(d, 'enrol', token);
  if (!pending) throw invalidEnrolToken();
  await requireStanding(d, pending.principalId, invalidEnrolToken);
  return pending;
}

/** totp/start with an enrolment token. */
export async function startEnrolmentByToken(d: SecondStepDeps, token: string) {
  const pending = await enrolmentOf(d, token);
  return startTotpEnrolment(d, pending.principalId, pending.email ?? pending.principalId);
}

/** totp/confirm with an enrolment token: the factor is on and the login it came from finishes. */
export async function confirmEnrolmentByToken(d: SecondStepDeps, token: string, code: string) {
  const pending = await enrolmentOf(d, token);
  const confirmed = await confirmTotpEnrolment(d, pending.principalId, code);
  // The factor is on either way; a token another confirmation spent first gets no second session.
  const session = (await spend(d, 'enrol', token)) ? await openSession(d, pending.principalId, pending) : null;
  return { ...confirmed, session };
}
