import { credentialsOf, REAUTH_AFTER_SECONDS } from '@floe/accounts';
import { badRequest, conflict, forbidden, HttpError, type Caller } from '@floe/http';
import { markSignedIn } from '../store/sessions';
import { checkedPassword, takeLoginAttempt, type PasswordLimitDeps } from './login';
import { verifySigning } from './passkeys';
import { proveSecondFactor, readTotp, type FactorProof, type SecondFactorDeps } from './second-factor';

// Spec: Authentication 7 — a sensitive change from a browser session that
// last signed in over 10 minutes ago is 401 `reauth_required`; POST
// /v1/auth/reauth is how that session signs in again without a new login:
// the password (when the account has one; a wrong one counts as a failed
// login) and, with an authenticator app on, a code or a backup code — or a
// passkey alone. It moves
// the session's `signed_in_at` to now. Only a login session reauthenticates:
// an API key is never asked (session_required), a token is not a person
// (not_a_person).

export interface ReauthDeps extends PasswordLimitDeps, SecondFactorDeps {}

/** 403 unless the caller is a person's login session (the second-factor routes share it). */
export function requireLoginSession(caller: Caller): string {
  if (caller.kind !== 'human') throw forbidden('not_a_person', 'only a person has a password or a second factor; a token cannot do this');
  if (!caller.sessionId) {
    throw forbidden('session_required', 'this is done in a login session (sign in at /app or POST /v1/auth/login); an API key, or a token made from one, never needs it');
  }
  return caller.sessionId;
}

export async function reauthenticate(d: ReauthDeps, caller: Caller, r: FactorProof & { password?: string; ip: string | null }) {
  const sessionId = requireLoginSession(caller);
  const person = await credentialsOf(d.prisma, caller.principalId);
  if (!person) throw new HttpError(401, 'unauthorized', 'a valid credential is required');
  if (person.status === 'suspended') throw forbidden('principal_suspended', 'this account is suspended');
  // A passkey whose authenticator verified the person (PIN or biometric) is two factors in itself: it reauthenticates alone.
  if (r.passkey) {
    await verifySigning(d, 'reauth', r.passkey.ceremony_id, r.passkey.response, caller.principalId);
    return signedInAgain(d, sessionId, caller.principalId);
  }
  const factor = await hasTotp(d, caller.principalId);
  if (person.passwordHash) {
    if (r.password === undefined) throw badRequest('password_required', 'send this account\'s `password`', { field: 'password' });
    await takeLoginAttempt(d, r.ip);
    const right = await checkedPassword(d, {
      email: person.email ?? caller.principalId, ip: r.ip, personId: caller.principalId, stored: person.passwordHash, password: r.password,
    });
    if (!right) throw new HttpError(401, 'invalid_credentials', 'the password is wrong');
  } else if (!factor) {
    throw conflict('password_required', 'this account has no password yet, nor a second factor to prove it is you: confirm with the provider you sign in with (POST /v1/auth/reauth/oidc/{provider}), set a password (POST /v1/auth/password/reset/start), or sign in again', {
      remedy: 'POST /v1/auth/password/reset/start',
    });
  }
  if (factor) await proveSecondFactor(d, caller.principalId, r);
  return signedInAgain(d, sessionId, caller.principalId);
}

/** Whether the authenticator app is on (passkeys are not counted: a code is asked only of an app). */
async function hasTotp(d: ReauthDeps, principalId: string): Promise<boolean> {
  return Boolean((await readTotp(d, principalId))?.enabledAt);
}

/** The session signed in again now: sensitive changes are allowed for another 10 minutes (a sign-in provider's reauthentication too). */
export async function signedInAgain(d: Pick<ReauthDeps, 'prisma'>, sessionId: string, principalId: string) {
  const at = await markSignedIn(d.prisma, sessionId, principalId);
  if (!at) throw new HttpError(401, 'session_revoked', 'this session has ended; log in again');
  return {
    reauthenticated: true as const,
    session_id: sessionId,
    signed_in_at: at.toISOString(),
    sensitive_changes_until: new Date(at.getTime() + REAUTH_AFTER_SECONDS * 1000).toISOString(),
  };
}
