import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { Caller } from '@floe/http';
import { CONTROL_TOKEN_AUDIENCE_OF, CONTROL_TOKEN_LIFETIME_SECONDS } from '@floe/auth';
import type { SigningKeys } from './signing-keys';

/** A control-plane access token for the caller: RS256, 900 s, with the key it was exchanged for. */
export async function mintControlToken(keys: SigningKeys, baseUrl: string, caller: Caller): Promise<{ token: string; expiresIn: number }> {
  const signer = await keys.currentSigner();
  const claims: Record<string, unknown> = { kind: caller.kind };
  if (caller.email) claims.email = caller.email;
  if (caller.keyId) claims.key_id = caller.keyId;
  const token = await new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
    .setIssuer(baseUrl)
    .setSubject(caller.principalId)
    .setAudience(CONTROL_TOKEN_AUDIENCE_OF(baseUrl))
    .setIssuedAt()
    .setExpirationTime(`${CONTROL_TOKEN_LIFETIME_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
  return { token, expiresIn: CONTROL_TOKEN_LIFETIME_SECONDS };
}

/** A login session's access token: RS256, 15 minutes, with `sub`, `email`, `kind` and `sid` (spec: Session). */
export async function mintSessionToken(keys: SigningKeys, baseUrl: string, s: { principalId: string; email: string | null; sessionId: string }): Promise<{ token: string; expiresIn: number }> {
  const signer = await keys.currentSigner();
  const token = await new SignJWT({ kind: 'human', ...(s.email ? { email: s.email } : {}), sid: s.sessionId })
    .setProtectedHeader({ alg: 'RS256', kid: signer.kid, typ: 'JWT' })
    .setIssuer(baseUrl)
    .setSubject(s.principalId)
    .setAudience(CONTROL_TOKEN_AUDIENCE_OF(baseUrl))
    .setIssuedAt()
    .setExpirationTime(`${SESSION_ACCESS_SECONDS}s`)
    .setJti(randomUUID())
    .sign(signer.key);
  return { token, expiresIn: SESSION_ACCESS_SECONDS };
}

/** The spec's login access token lifetime: 15 minutes. */
export const SESSION_ACCESS_SECONDS = 900;
