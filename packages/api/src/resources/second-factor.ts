import { z } from 'zod';
import { operations } from '../operation';
import { Id, IsoTime } from '../shapes';
import { LoginSession } from './account';
import { PasskeySignBody } from './passkeys';

// Spec: Authentication 7 and 8 — the two-factor, reauthentication and
// second-step login routes, which the spec names by their error codes only;
// the shapes here are Floe's own. Served by identity
// (services/identity/src/routes/second-factor.ts).

const Code = z.string().trim().min(1).max(32);
const BackupCode = z.string().trim().min(1).max(64);
const OneTimeToken = z.string().trim().min(1).max(200);

const code = Code.meta({ description: 'The six-digit code the authenticator app shows now.', example: '492039' });
const backupCode = BackupCode.meta({ description: 'One of the ten backup codes (dashes and case do not matter); each works once.' });
const enrolToken = OneTimeToken.meta({ description: 'From a login answered 401 `mfa_enrolment_required`: enrols without a session, and the confirmation finishes the login.' });

/** A code, a backup code or a passkey's signature: proof of the second factor. */
const FactorProof = z.object({
  code: code.optional(),
  backup_code: backupCode.optional(),
  passkey: PasskeySignBody.optional().meta({ description: 'A passkey\'s answer to the options of POST /v1/auth/login/mfa/passkey-options (login) or /v1/auth/reauth/passkey-options (reauthentication).' }),
});

export const TotpStartBody = z.object({ enrol_token: enrolToken.optional() });
export const TotpConfirmBody = z.object({ code, enrol_token: enrolToken.optional() });
export const SecondFactorProofBody = FactorProof;
export const LoginSecondStepBody = FactorProof.extend({
  mfa_token: OneTimeToken.meta({ description: 'From the login answered 401 `mfa_required` (5 minutes, one session).' }),
});
export const ReauthBody = FactorProof.extend({
  password: z.string().min(1).max(4096).optional().meta({ description: 'The account\'s password (required when it has one).' }),
});

const SecondFactorStatus = z.object({
  totp: z.object({
    enabled: z.boolean(),
    enabled_at: IsoTime.nullable(),
    pending: z.boolean().meta({ description: 'An enrolment started and not yet confirmed (10 minutes).' }),
  }),
  backup_codes: z.object({ remaining: z.int(), generated_at: IsoTime.nullable() }),
  passkeys: z.int().meta({ description: 'How many passkeys the account holds (GET /v1/auth/passkeys lists them); each is a second factor.' }),
  required_by: z.array(z.object({ org_id: Id, handle: z.string(), name: z.string() }))
    .meta({ description: 'Organisations whose policy (`second_factor: required`) asks their members for a second factor.' }),
}).meta({ id: 'SecondFactorStatus' });

const BackupCodes = z.array(z.string()).length(10).meta({ description: 'Ten one-time codes, shown this once (only their hashes are kept).' });

const SESSION_ONLY = ['session_required', 'not_a_person'] as const;
const PROOF_ERRORS = ['invalid_mfa_code', 'mfa_code_required', 'rate_limited', 'mfa_unavailable', 'invalid_passkey', 'origin_not_allowed'] as const;

export const secondFactor = {
  tag: 'Second factor',
  description: 'Two-factor codes (TOTP) with backup codes, the login\'s second step, and reauthentication of a login session (Authentication 7: a sensitive change wants a sign-in within 10 minutes).',
  operations: operations([
    {
      method: 'get', path: '/v1/auth/mfa', id: 'getSecondFactor', service: 'identity',
      summary: 'Your second factor: whether it is on, backup codes left, and which organisations require one',
      auth: ['session'],
      responses: { 200: { description: 'Where the account stands.', schema: SecondFactorStatus } },
      errors: [...SESSION_ONLY, 'mfa_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/mfa/totp/start', id: 'startTotpEnrolment', service: 'identity',
      summary: 'Start enrolling an authenticator app: its secret, otpauth URI and QR code',
      description: 'From a login session that signed in within 10 minutes (else 401 `reauth_required`), or with the `enrol_token` a login answered 401 `mfa_enrolment_required` with. Starting again replaces an unconfirmed secret. The secret is sealed with the deployment key at rest. `Cache-Control: no-store`.',
      auth: ['session', 'none'],
      bodyOptional: true,
      body: TotpStartBody,
      responses: {
        200: {
          description: 'The secret to add to an authenticator app; confirm with a code within 10 minutes.',
          schema: z.object({
            secret: z.string().meta({ description: 'Base32, for typing into the app by hand.' }),
            otpauth_uri: z.string(),
            qr_svg: z.string().meta({ description: 'The otpauth URI as an SVG QR code.' }),
            algorithm: z.literal('SHA1'),
            digits: z.literal(6),
            period: z.literal(30),
            confirm_within_seconds: z.int(),
            next: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'unauthorized', ...SESSION_ONLY, 'reauth_required', 'invalid_enrol_token', 'mfa_already_enabled', 'principal_suspended', 'mfa_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/mfa/totp/confirm', id: 'confirmTotpEnrolment', service: 'identity',
      summary: 'Confirm the authenticator app with a code: the second factor is on, with ten backup codes',
      description: 'A code of the step now or the one before or after. The ten backup codes are shown once. With an `enrol_token` the login it came from finishes: the answer carries a session. Twenty confirmations at once: one succeeds. `Cache-Control: no-store`.',
      auth: ['session', 'none'],
      body: TotpConfirmBody,
      responses: {
        200: {
          description: 'The factor is on.',
          schema: z.object({
            enabled: z.literal(true),
            enabled_at: IsoTime,
            backup_codes: BackupCodes,
            note: z.string(),
            session: LoginSession.nullable().meta({ description: 'With `enrol_token`: the session of the login that asked for enrolment.' }),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'unauthorized', ...SESSION_ONLY, 'invalid_enrol_token', 'mfa_not_started', 'mfa_already_enabled', 'invalid_mfa_code', 'rate_limited', 'mfa_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/mfa/disable', id: 'disableSecondFactor', service: 'identity',
      summary: 'Turn the second factor off (with a code or a backup code)',
      description: 'From a login session that signed in within 10 minutes. Removes the secret and every backup code. 409 `mfa_required_by_policy` while an organisation of yours requires a second factor.',
      auth: ['session'],
      body: SecondFactorProofBody,
      responses: { 200: { description: 'The factor is off.', schema: z.object({ disabled: z.literal(true), backup_codes_removed: z.int() }) } },
      errors: ['invalid_value', 'unauthorized', ...SESSION_ONLY, 'reauth_required', 'mfa_not_enabled', 'mfa_required_by_policy', ...PROOF_ERRORS],
    },
    {
      method: 'post', path: '/v1/auth/mfa/backup-codes', id: 'regenerateBackupCodes', service: 'identity',
      summary: 'Ten new backup codes (the old ones stop working)',
      description: 'From a login session that signed in within 10 minutes, with a code or a backup code. `Cache-Control: no-store`.',
      auth: ['session'],
      body: SecondFactorProofBody,
      responses: { 200: { description: 'The new codes, shown once.', schema: z.object({ backup_codes: BackupCodes, replaced: z.int(), note: z.string() }) } },
      errors: ['invalid_value', 'unauthorized', ...SESSION_ONLY, 'reauth_required', 'mfa_not_enabled', ...PROOF_ERRORS],
    },
    {
      method: 'post', path: '/v1/auth/login/mfa', id: 'finishLoginWithSecondFactor', service: 'identity',
      summary: 'The login\'s second step: the `mfa_token` and a code (or a backup code) for a session',
      description: 'Wrong codes count against the person as failed logins do (10 an hour, then 429). A code is accepted once (a replay of the same step is refused), a backup code once ever. `Cache-Control: no-store`.',
      auth: ['none'],
      body: LoginSecondStepBody,
      responses: {
        200: {
          description: 'A new session.',
          schema: LoginSession.extend({
            second_factor: z.object({ method: z.enum(['totp', 'backup_code', 'passkey']), backup_codes_left: z.int() }),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'invalid_mfa_token', 'principal_suspended', ...PROOF_ERRORS],
    },
    {
      method: 'post', path: '/v1/auth/reauth', id: 'reauthenticate', service: 'identity',
      summary: 'Reauthenticate this login session: sensitive changes are allowed again for 10 minutes',
      description: 'The password (when the account has one) and, with an authenticator app on, a code or a backup code; or a passkey alone (a second factor in itself). Wrong passwords count as failed logins. Answered for login sessions only: an API key is never asked to reauthenticate (403 `session_required`), a token is not a person (403 `not_a_person`).',
      auth: ['session'],
      body: ReauthBody,
      responses: {
        200: {
          description: 'The session signed in again now.',
          schema: z.object({ reauthenticated: z.literal(true), session_id: Id, signed_in_at: IsoTime, sensitive_changes_until: IsoTime }),
        },
      },
      errors: ['invalid_value', 'unauthorized', ...SESSION_ONLY, 'password_required', 'invalid_credentials', 'principal_suspended', ...PROOF_ERRORS],
    },
  ]),
};
