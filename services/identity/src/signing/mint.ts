import { randomUUID } from 'node:crypto';
import { SignJWT, type JWTPayload } from 'jose';
import type { Caller } from '@floe/http';
import { CONTROL_TOKEN_AUDIENCE_OF, CONTROL_TOKEN_LIFETIME_SECONDS } from '@floe/auth';
import type { SigningKeys } from './signing-keys';

// The control-plane tokens identity signs: RS256 with the current signing
// key, issuer and audience the deployment's base_url, a unique jti.

/** The spec's login access token lifetime: 15 minutes. */
export const SESSION_ACCESS_SECONDS = 900;

async function signControlToken(keys: SigningKeys, baseUrl: string, subject: string, claims: JWTPayload, seconds: number): Promise<{ token: string; expiresIn: number }> {
  const signer = await keys.currentSigner();
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
    .setIssuer(baseUrl)
    .setSubject(subject)
    .setAudience(CONTROL_TOKEN_AUDIENCE_OF(baseUrl))
    .setIssuedAt()
    .setExpirationTime(`${seconds}s`)
    .setJti(randomUUID())
    .sign(signer.key);
  return { token, expiresIn: seconds };
}

/** A control-plane access token for the caller: RS256, 900 s, with the key it was exchanged for. */
export function mintControlToken(keys: SigningKeys, baseUrl: string, caller: Caller): Promise<{ token: string; expiresIn: number }> {
  return signControlToken(keys, baseUrl, caller.principalId, {
    kind: caller.kind, ...(caller.email ? { email: caller.email } : {}), ...(caller.keyId ? { key_id: caller.keyId } : {}),
  }, CONTROL_TOKEN_LIFETIME_SECONDS);
}

/** A login session's access token: RS256, 15 minutes, with `sub`, `email`, `kind` and `sid` (spec: Session). */
export function mintSessionToken(keys: SigningKeys, baseUrl: string, s: { principalId: string; email: string | null; sessionId: string }): Promise<{ token: string; expiresIn: number }> {
  return signControlToken(keys, baseUrl, s.principalId, { kind: 'human', ...(s.email ? { email: s.email } : {}), sid: s.sessionId }, SESSION_ACCESS_SECONDS);
}
