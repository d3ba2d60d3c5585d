import { createHash, randomBytes } from 'node:crypto';
import { generateSecret, generateURI, verify } from 'otplib';
import QRCode from 'qrcode';
import { organizationsRequiringSecondFactor, secondFactorRequirement } from '@floe/accounts';
import type { PrismaClient } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { conflict, HttpError, notFound, rateLimited, type Logger } from '@floe/http';
import {
  backupCodesLeft, enableTotp, removeSecondFactor, replaceBackupCodes, startTotp, totpOf, useBackupCode, useTotpStep, type TotpRecord,
} from '../store/second-factor';
import { countPasskeys } from '../store/passkeys';
import type { LoginFailures } from './login';
import { verifySigning, type PasskeyDeps } from './passkeys';

// A person's second factor: an authenticator app (TOTP, RFC 6238: SHA-1, six
// digits, 30-second steps, otplib) and ten backup codes. The secret is sealed
// with the deployment key; backup codes are 80 random bits each, kept as
// SHA-256 hashes. A code is accepted for the step now or one either side,
// and each step once (store/second-factor.ts: the step is recorded by a
// conditional update, so a replay, or the same code sent twenty times at
// once, is let through once). Wrong codes count against the person like
// failed logins (10 an hour), reserved before the code is compared.

export const TOTP_PERIOD_SECONDS = 30;
/** How long an enrolment waits for its confirming code. */
export const ENROL_SECONDS = 600;
export const BACKUP_CODE_COUNT = 10;
const ISSUER = 'Floe';

export interface SecondFactorDeps extends PasskeyDeps {
  prisma: PrismaClient;
  keyring: Keyring;
  loginFailures: LoginFailures;
  logger: Logger;
}

/** What proves the factor: a code now, a backup code, or a passkey's answer to a ceremony. */
export interface FactorProof {
  code?: string;
  backup_code?: string;
  passkey?: { ceremony_id: string; response: Parameters<typeof verifySigning>[3] };
}

export type ProofMethod = 'totp' | 'backup_code' | 'passkey';

const unavailable = () => new HttpError(503, 'mfa_unavailable', 'the second factor cannot be checked right now; try again in a minute', { retry_after_seconds: 30 }, { 'Retry-After': '30' });
const wrongCode = (status: 400 | 401) => new HttpError(status, 'invalid_mfa_code', 'that code is not right (or was already used); use the code your authenticator app shows now, or a backup code');

/** The factor's row; a store that cannot answer is 503 `mfa_unavailable` (logged), not a login failure. */
export async function readTotp(d: Pick<SecondFactorDeps, 'prisma' | 'logger'>, principalId: string): Promise<TotpRecord | null> {
  try {
    return await totpOf(d.prisma, principalId);
  } catch (err) {
    d.logger.error('second factor store unavailable', { err: err as Error });
    throw unavailable();
  }
}

/** The person's second factors: the authenticator app (on or not) and how many passkeys. */
export async function factorsOf(d: Pick<SecondFactorDeps, 'prisma' | 'logger'>, principalId: string): Promise<{ totp: boolean; passkeys: number }> {
  const [totp, passkeys] = await Promise.all([readTotp(d, principalId), countPasskeys(d.prisma, principalId)]);
  return { totp: Boolean(totp?.enabledAt), passkeys };
}

/** Whether the person has a second factor: the app on, or a passkey. */
export async function hasSecondFactor(d: Pick<SecondFactorDeps, 'prisma' | 'logger'>, principalId: string): Promise<boolean> {
  const f = await factorsOf(d, principalId);
  return f.totp || f.passkeys > 0;
}

function openSecret(d: Pick<SecondFactorDeps, 'keyring' | 'logger'>, sealed: string): string {
  try {
    return d.keyring.open(sealed);
  } catch (err) {
    d.logger.error('a second factor secret does not open', { err: err as Error });
    throw unavailable();
  }
}

/** The time step a code belongs to, or null when it matches none of now ±1. */
async function stepOf(secret: string, code: string): Promise<number | null> {
  const token = code.replace(/\s+/g, '');
  if (!/^\d{6}$/.test(token)) return null;
  const r = await verify({ secret, token, epochTolerance: TOTP_PERIOD_SECONDS });
  return r.valid && 'timeStep' in r ? r.timeStep : null;
}

const normalizedBackupCode = (code: string) => code.toLowerCase().replace(/[^a-z0-9]/g, '');
const backupHash = (code: string) => createHash('sha256').update(normalizedBackupCode(code)).digest('hex');

/** Ten new codes: `xxxx-xxxx-xxxx-xxxx` of base32 letters (80 bits), and their hashes. */
function newBackupCodes(): { codes: string[]; hashes: string[] } {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, () => {
    const bytes = randomBytes(16);
    const chars = Array.from(bytes, (b) => alphabet[b & 31]).join('');
    return chars.match(/.{4}/g)!.join('-');
  });
  return { codes, hashes: codes.map(backupHash) };
}

/** A wrong proof costs the person one of their ten failures an hour; a spent budget is 429 before anything is compared. */
async function underFailureLimit<T>(d: Pick<SecondFactorDeps, 'loginFailures'>, principalId: string, check: () => Promise<T | null>): Promise<T | null> {
  const key = `second-factor:${principalId}`;
  const blocked = await d.loginFailures.reserve(key);
  if (blocked !== null) throw rateLimited(blocked, `too many wrong codes for this account; try again in ${blocked} s`);
  const ok = await check();
  if (ok !== null) await d.loginFailures.giveBack(key);
  return ok;
}

/**
 * Checks a code or a backup code of a person whose factor is on and spends
 * it; which it was. 401 `mfa_code_required` without either, `invalid_mfa_code`
 * (`status`) when wrong or already used.
 */
export async function proveSecondFactor(d: SecondFactorDeps, principalId: string, proof: FactorProof, status: 400 | 401 = 401): Promise<ProofMethod> {
  if (proof.passkey) {
    await verifySigning(d, 'factor', proof.passkey.ceremony_id, proof.passkey.response, principalId);
    return 'passkey';
  }
  if (!proof.code && !proof.backup_code) {
    throw new HttpError(401, 'mfa_code_required', 'this account has a second factor: send `code` (from the authenticator app), `backup_code`, or a `passkey` answer');
  }
  const totp = await readTotp(d, principalId);
  if (!totp?.enabledAt) throw conflict('mfa_not_enabled', 'this account has no second factor');
  const method = await underFailureLimit(d, principalId, async (): Promise<ProofMethod | null> => {
    if (proof.backup_code) return (await useBackupCode(d.prisma, principalId, backupHash(proof.backup_code))) ? 'backup_code' : null;
    const step = await stepOf(openSecret(d, totp.secret), proof.code!);
    return step !== null && (await useTotpStep(d.prisma, principalId, step)) ? 'totp' : null;
  });
  if (!method) throw wrongCode(status);
  return method;
}

/** GET /v1/auth/mfa. */
export async function secondFactorStatus(d: SecondFactorDeps, principalId: string) {
  const totp = await readTotp(d, principalId);
  const [codes, requiredBy, passkeys] = await Promise.all([
    backupCodesLeft(d.prisma, principalId), organizationsRequiringSecondFactor(d.prisma, principalId), countPasskeys(d.prisma, principalId),
  ]);
  const pending = Boolean(totp && !totp.enabledAt && Date.now() - totp.startedAt.getTime() < ENROL_SECONDS * 1000);
  return {
    totp: { enabled: Boolean(totp?.enabledAt), enabled_at: totp?.enabledAt?.toISOString() ?? null, pending },
    backup_codes: { remaining: codes.remaining, generated_at: codes.generatedAt?.toISOString() ?? null },
    passkeys,
    required_by: requiredBy.map((o) => ({ org_id: o.orgId, handle: o.handle, name: o.name })),
  };
}

/** Starts (or starts again) an enrolment: the secret, sealed at rest, shown this once with its URI and QR code. */
export async function startTotpEnrolment(d: SecondFactorDeps, principalId: string, label: string) {
  const secret = generateSecret();
  if (!(await startTotp(d.prisma, principalId, d.keyring.seal(secret)))) {
    throw conflict('mfa_already_enabled', 'this account already has an authenticator app; turn it off first (POST /v1/auth/mfa/disable) to enrol another');
  }
  const otpauth = generateURI({ issuer: ISSUER, label, secret });
  return {
    secret,
    otpauth_uri: otpauth,
    qr_svg: await QRCode.toString(otpauth, { type: 'svg', margin: 1, errorCorrectionLevel: 'M' }),
    algorithm: 'SHA1' as const,
    digits: 6 as const,
    period: 30 as const,
    confirm_within_seconds: ENROL_SECONDS,
    next: 'POST /v1/auth/mfa/totp/confirm with {code} from the app',
  };
}

/** Confirms an enrolment with a code: the factor is on, with ten backup codes (shown once). */
export async function confirmTotpEnrolment(d: SecondFactorDeps, principalId: string, code: string) {
  const totp = await readTotp(d, principalId);
  if (totp?.enabledAt) throw conflict('mfa_already_enabled', 'this account\'s authenticator app is already confirmed');
  if (!totp || Date.now() - totp.startedAt.getTime() >= ENROL_SECONDS * 1000) {
    throw notFound('mfa_not_started', 'no enrolment is waiting for a code (they last 10 minutes): start one with POST /v1/auth/mfa/totp/start');
  }
  const step = await underFailureLimit(d, principalId, () => stepOf(openSecret(d, totp.secret), code));
  if (step === null) throw wrongCode(400);
  const { codes, hashes } = newBackupCodes();
  const enabledAt = await d.prisma.$transaction(async (tx) => {
    const at = await enableTotp(tx, principalId, totp.startedAt, step);
    if (at) await replaceBackupCodes(tx, principalId, hashes);
    return at;
  });
  if (!enabledAt) throw conflict('mfa_already_enabled', 'this enrolment was confirmed by another request at the same moment');
  return {
    enabled: true as const,
    enabled_at: enabledAt.toISOString(),
    backup_codes: codes,
    note: 'Keep these ten backup codes somewhere safe: each signs you in once if the app is lost. They are shown only now.',
  };
}

/** Turns the factor off with a proof of it; refused while an organisation of the person requires one. */
export async function disableSecondFactor(d: SecondFactorDeps, principalId: string, proof: FactorProof) {
  const totp = await readTotp(d, principalId);
  if (!totp?.enabledAt) throw conflict('mfa_not_enabled', 'this account has no authenticator app to turn off');
  // A passkey left is a second factor still: only the last factor is held by the policy.
  const requiredBy = (await countPasskeys(d.prisma, principalId)) ? [] : await organizationsRequiringSecondFactor(d.prisma, principalId);
  if (requiredBy.length) {
    const { whoRequire, organizations } = secondFactorRequirement(requiredBy);
    throw conflict('mfa_required_by_policy', `${whoRequire} a second factor of its members`, {
      organizations,
      remedy: 'an admin changes the organisation\'s policy (PATCH /v1/orgs/{org_id}/policy {second_factor: "optional"}), or you leave it',
    });
  }
  await proveSecondFactor(d, principalId, proof);
  const removed = await d.prisma.$transaction((tx) => removeSecondFactor(tx, principalId));
  return { disabled: true as const, backup_codes_removed: removed.backupCodes };
}

/** Ten new backup codes for a proof of the factor; the old ones stop working. */
export async function regenerateBackupCodes(d: SecondFactorDeps, principalId: string, proof: FactorProof) {
  await proveSecondFactor(d, principalId, proof);
  const { codes, hashes } = newBackupCodes();
  const replaced = await d.prisma.$transaction((tx) => replaceBackupCodes(tx, principalId, hashes));
  return { backup_codes: codes, replaced, note: 'The earlier backup codes no longer work. These are shown only now.' };
}

/** Backup codes a person has left (a login's second step says it after one is spent). */
export async function remainingBackupCodes(d: Pick<SecondFactorDeps, 'prisma'>, principalId: string): Promise<number> {
  return (await backupCodesLeft(d.prisma, principalId)).remaining;
}
