import { randomBytes } from 'node:crypto';
import {
  generateAuthenticationOptions, generateRegistrationOptions, verifyAuthenticationResponse, verifyRegistrationResponse,
  type AuthenticationResponseJSON, type AuthenticatorTransportFuture, type RegistrationResponseJSON,
} from '@simplewebauthn/server';
import { credentialsOf, organizationsRequiringSecondFactor, secondFactorRequirement } from '@floe/accounts';
import type { PrismaClient } from '@floe/db';
import { conflict, forbidden, HttpError, notFound, type Logger } from '@floe/http';
import type { Redis } from 'ioredis';
import {
  addPasskey, deletePasskey, passkeyById, passkeysOf, renamePasskey, usePasskey, type PasskeyRecord,
} from '../store/passkeys';
import { totpOf } from '../store/second-factor';

// Passkeys (WebAuthn, @simplewebauthn/server): a person registers up to ten
// from a login session, names, renames and deletes them, and signs in with
// one instead of a password (a passkey is possession and, with user
// verification, a second factor in itself). The relying party id and the
// origins a browser may sign from are the deployment's (FLOE_WEBAUTHN_RP_ID,
// FLOE_WEBAUTHN_ORIGINS; by default the host and origin of FLOE_BASE_URL).
// Each ceremony's challenge is random, kept in Redis for five minutes under
// the ceremony's purpose and spent by the one answer that uses it.

export const PASSKEY_LIMIT = 10;
const limitReached = () => conflict('passkey_limit', `an account holds at most ${PASSKEY_LIMIT} passkeys; delete one first`, { limit: PASSKEY_LIMIT });
export const CEREMONY_SECONDS = 300;

export interface WebAuthnSettings {
  rpId: string;
  rpName: string;
  origins: string[];
  /** Passwordless sign-in with a passkey (registration and use as a factor are always served). */
  passkeyLogin: boolean;
}

export interface PasskeyDeps {
  prisma: PrismaClient;
  redis: Redis;
  logger: Logger;
  config: { redisPrefix: string; webauthn: WebAuthnSettings };
}

type Purpose = 'register' | SigningPurpose;
/**
 * What a signature is for: a passwordless sign-in, the second step after a
 * password, or reauthenticating a session. Where the passkey stands alone
 * (sign-in, reauthentication) the authenticator must verify the person
 * (PIN or biometric), so it is two factors in itself; after a password,
 * possession is enough.
 */
export type SigningPurpose = 'login' | 'factor' | 'reauth';
const standsAlone = (purpose: SigningPurpose) => purpose !== 'factor';

const newCeremonyId = () => `wac_${randomBytes(16).toString('hex')}`;
const ceremonyKey = (d: Pick<PasskeyDeps, 'config'>, purpose: Purpose, id: string) => `${d.config.redisPrefix}webauthn:${purpose}:${id}`;

async function keepChallenge(d: Pick<PasskeyDeps, 'redis' | 'config'>, purpose: Purpose, id: string, challenge: string, principalId: string | null): Promise<void> {
  await d.redis.set(ceremonyKey(d, purpose, id), JSON.stringify({ challenge, principalId }), 'EX', CEREMONY_SECONDS);
}

/** The ceremony's challenge, spent: null when there is none (expired, used, never made). */
async function takeChallenge(d: Pick<PasskeyDeps, 'redis' | 'config'>, purpose: Purpose, id: string): Promise<{ challenge: string; principalId: string | null } | null> {
  const raw = await d.redis.getdel(ceremonyKey(d, purpose, id));
  return raw ? JSON.parse(raw) as { challenge: string; principalId: string | null } : null;
}

const invalidPasskey = (status: 400 | 401, why: string) => new HttpError(status, 'invalid_passkey', `the passkey's answer is not valid: ${why}`);

/** The origin a browser signed from (clientDataJSON), refused unless the deployment lists it. */
function requireAllowedOrigin(d: Pick<PasskeyDeps, 'config'>, clientDataJSON: unknown, status: 400 | 401): void {
  let origin: unknown;
  try {
    origin = JSON.parse(Buffer.from(String(clientDataJSON), 'base64url').toString('utf8')).origin;
  } catch {
    throw invalidPasskey(status, 'its client data does not decode');
  }
  if (typeof origin !== 'string' || !d.config.webauthn.origins.includes(origin)) {
    throw forbidden('origin_not_allowed', `passkeys are used from ${d.config.webauthn.origins.join(', ')}, not ${typeof origin === 'string' ? origin : 'this page'}`, {
      allowed_origins: d.config.webauthn.origins,
    });
  }
}

export function passkeyView(p: PasskeyRecord) {
  return {
    passkey_id: p.id,
    name: p.name,
    created_at: p.createdAt.toISOString(),
    last_used_at: p.lastUsedAt?.toISOString() ?? null,
    device_type: p.deviceType,
    backed_up: p.backedUp,
  };
}

/** POST …/passkeys/register/options: the creation options a browser passes to navigator.credentials.create, under a ceremony id. */
export async function registrationOptions(d: PasskeyDeps, principalId: string) {
  const [person, existing] = await Promise.all([credentialsOf(d.prisma, principalId), passkeysOf(d.prisma, principalId)]);
  if (existing.length >= PASSKEY_LIMIT) throw limitReached();
  const options = await generateRegistrationOptions({
    rpName: d.config.webauthn.rpName,
    rpID: d.config.webauthn.rpId,
    userName: person?.email ?? principalId,
    userID: new TextEncoder().encode(principalId),
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransportFuture[] })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
    timeout: CEREMONY_SECONDS * 1000,
  });
  const ceremonyId = newCeremonyId();
  await keepChallenge(d, 'register', ceremonyId, options.challenge, principalId);
  return { ceremony_id: ceremonyId, options, expires_in: CEREMONY_SECONDS };
}

/** POST …/passkeys: the browser's answer to a registration ceremony, verified and kept. */
export async function registerPasskey(d: PasskeyDeps, principalId: string, ceremonyId: string, answer: unknown, name: string | undefined) {
  // The shape is the library's to check (it refuses what it cannot read); the routes parse the outline.
  const response = answer as RegistrationResponseJSON;
  requireAllowedOrigin(d, response?.response?.clientDataJSON, 400);
  // A credential registered already (an answer sent again) is told so before its spent challenge is.
  if (typeof response?.id === 'string' && await passkeyById(d.prisma, response.id)) throw conflict('passkey_exists', 'this passkey is registered already');
  const ceremony = await takeChallenge(d, 'register', ceremonyId);
  if (!ceremony || ceremony.principalId !== principalId) throw invalidPasskey(400, 'no registration of yours is waiting for it (they last 5 minutes, and each takes one answer): ask for new options');
  let verified: Awaited<ReturnType<typeof verifyRegistrationResponse>>;
  try {
    verified = await verifyRegistrationResponse({
      response, expectedChallenge: ceremony.challenge, expectedOrigin: d.config.webauthn.origins, expectedRPID: d.config.webauthn.rpId, requireUserVerification: false,
    });
  } catch (err) {
    throw invalidPasskey(400, (err as Error).message);
  }
  if (!verified.verified) throw invalidPasskey(400, 'its signature does not verify');
  const info = verified.registrationInfo;
  const existing = await passkeysOf(d.prisma, principalId);
  const record = {
    id: info.credential.id,
    principalId,
    publicKey: new Uint8Array(info.credential.publicKey),
    counter: BigInt(info.credential.counter),
    transports: info.credential.transports ?? [],
    name: name ?? `Passkey ${existing.length + 1}`,
    deviceType: info.credentialDeviceType,
    backedUp: info.credentialBackedUp,
  };
  const outcome = await addPasskey(d.prisma, record, PASSKEY_LIMIT);
  if (outcome === 'exists') throw conflict('passkey_exists', 'this passkey is registered already');
  if (outcome === 'limit') throw limitReached();
  return passkeyView((await passkeyById(d.prisma, record.id))!);
}

export async function listPasskeys(d: Pick<PasskeyDeps, 'prisma'>, principalId: string) {
  const passkeys = (await passkeysOf(d.prisma, principalId)).map(passkeyView);
  return { passkeys, count: passkeys.length, limit: PASSKEY_LIMIT };
}

const passkeyNotFound = () => notFound('passkey_not_found', 'no passkey of yours has that id');

export async function renameOwnPasskey(d: Pick<PasskeyDeps, 'prisma'>, principalId: string, id: string, name: string) {
  if (!(await renamePasskey(d.prisma, principalId, id, name))) throw passkeyNotFound();
  return passkeyView((await passkeyById(d.prisma, id))!);
}

/** Deletes a passkey; refused when it is the person's last factor and an organisation of theirs requires one. */
export async function deleteOwnPasskey(d: Pick<PasskeyDeps, 'prisma'>, principalId: string, id: string) {
  const own = await passkeysOf(d.prisma, principalId);
  if (!own.some((p) => p.id === id)) throw passkeyNotFound();
  const totp = await totpOf(d.prisma, principalId);
  if (own.length === 1 && !totp?.enabledAt) {
    const requiredBy = await organizationsRequiringSecondFactor(d.prisma, principalId);
    if (requiredBy.length) {
      const { whoRequire, organizations } = secondFactorRequirement(requiredBy);
      throw conflict('mfa_required_by_policy', `this is your last second factor, and ${whoRequire} one: add another (an authenticator app or a passkey) first`, {
        organizations,
      });
    }
  }
  if (!(await deletePasskey(d.prisma, principalId, id))) throw passkeyNotFound();
  return { passkey_id: id, deleted: true as const };
}

/**
 * Options for signing with a passkey: for a passwordless sign-in (any of the
 * deployment's passkeys: `principalId` null), or for a known person (the
 * login's second step, reauthentication: only theirs). A `ceremony_id`
 * names the challenge the answer must carry.
 */
export async function signingOptions(d: PasskeyDeps, purpose: SigningPurpose, principalId: string | null) {
  if (purpose === 'login' && !d.config.webauthn.passkeyLogin) throw forbidden('passkeys_disabled', 'this deployment does not sign in with passkeys; use the password');
  const own = principalId ? await passkeysOf(d.prisma, principalId) : [];
  if (principalId && !own.length) throw conflict('mfa_not_enabled', 'this account has no passkey');
  const options = await generateAuthenticationOptions({
    rpID: d.config.webauthn.rpId,
    allowCredentials: own.map((p) => ({ id: p.id, transports: p.transports as AuthenticatorTransportFuture[] })),
    userVerification: standsAlone(purpose) ? 'required' : 'preferred',
    timeout: CEREMONY_SECONDS * 1000,
  });
  const ceremonyId = newCeremonyId();
  await keepChallenge(d, purpose, ceremonyId, options.challenge, principalId);
  return { ceremony_id: ceremonyId, options, expires_in: CEREMONY_SECONDS };
}

/**
 * Verifies a browser's signature for a ceremony of `purpose`: the person the
 * passkey belongs to (who must be `principalId` when the ceremony named one).
 */
export async function verifySigning(d: PasskeyDeps, purpose: SigningPurpose, ceremonyId: string, answer: unknown, principalId: string | null = null): Promise<string> {
  const response = answer as AuthenticationResponseJSON;
  if (purpose === 'login' && !d.config.webauthn.passkeyLogin) throw forbidden('passkeys_disabled', 'this deployment does not sign in with passkeys; use the password');
  requireAllowedOrigin(d, response?.response?.clientDataJSON, 401);
  const ceremony = await takeChallenge(d, purpose, ceremonyId);
  if (!ceremony) throw invalidPasskey(401, 'no sign-in is waiting for it (they last 5 minutes, and each takes one answer): ask for new options');
  const passkey = typeof response?.id === 'string' ? await passkeyById(d.prisma, response.id) : null;
  const owner = ceremony.principalId ?? principalId;
  if (!passkey || (owner && passkey.principalId !== owner)) throw invalidPasskey(401, 'it is not a passkey of this account');
  let result: Awaited<ReturnType<typeof verifyAuthenticationResponse>>;
  try {
    result = await verifyAuthenticationResponse({
      response, expectedChallenge: ceremony.challenge, expectedOrigin: d.config.webauthn.origins, expectedRPID: d.config.webauthn.rpId,
      credential: { id: passkey.id, publicKey: passkey.publicKey, counter: Number(passkey.counter), transports: passkey.transports as AuthenticatorTransportFuture[] },
      requireUserVerification: standsAlone(purpose),
    });
  } catch (err) {
    throw invalidPasskey(401, (err as Error).message);
  }
  if (!result.verified) throw invalidPasskey(401, 'its signature does not verify');
  await usePasskey(d.prisma, passkey.id, result.authenticationInfo.newCounter);
  return passkey.principalId;
}
