import { z } from 'zod';
import { operations } from '../operation';
import { IsoTime, Id, OnboardingConnection } from '../shapes';

// Spec: Sign-up and recovery (the e-mail code routes; the one-call
// POST /v1/signup is the control plane's), Login and sessions, the Terms
// routes, DELETE /v1/me, and identity's public documents (GET /healthz,
// GET /v1/auth/config, GET /v1/config/formats). Every route here is served
// by identity (services/identity/src/routes/signup.ts, auth.ts,
// discovery.ts). The request schemas are the ones those routes parse with.

// ---- request fields, as the routes parse them ----

const Email = z.string().trim().toLowerCase().email().max(320);
const Password = z.string().min(1).max(4096);
const Token = z.string().min(1).max(512);
const EmailCode = z.string().trim().min(1).max(32);
const Engine = z.enum(['duckdb', 'pyiceberg', 'spark']).default('duckdb');

const email = Email.meta({ description: 'The person\'s e-mail address (trimmed, lowercased).', example: 'ada@example.com' });
const linkToken = Token.meta({ description: 'The token of the mailed link (`?token=…`).' });

// ---- sign-up by e-mail code and recovery (routes/signup.ts) ----

export const EmailSignupStartBody = z.object({
  email,
  workspace: z.string().trim().min(1).max(63).optional(),
  full_name: z.string().trim().min(1).max(200).optional(),
  organization_name: z.string().trim().min(1).max(100).optional(),
  handle: z.string().trim().toLowerCase().min(1).max(63).optional(),
});

export const EmailSignupVerifyBody = z.object({
  email,
  code: EmailCode.meta({ description: 'The six-digit code that was mailed.' }),
  accept_terms: z.unknown().optional().meta({ description: 'Must be exactly `true` (else 400 `terms_required`).' }),
  engine: Engine,
});

export const RecoverStartBody = z.object({ email });

export const RecoverVerifyBody = z.object({ email, code: EmailCode.meta({ description: 'The six-digit code that was mailed.' }) });

// ---- login and sessions, password, account, terms (routes/auth.ts) ----

export const PasswordSignupBody = z.object({
  email,
  full_name: z.string().trim().min(1).max(200),
  organization_name: z.string().trim().min(1).max(100),
  handle: z.string().trim().toLowerCase().min(1).max(63),
  return_to: z.string().regex(/^\/app\/[A-Za-z0-9/_?=&.%-]*$/, 'a path under /app/').max(512).optional(),
});

export const SetFirstPasswordBody = z.object({ token: linkToken, password: Password });

export const LoginBody = z.object({ email, password: Password });

export const RefreshSessionBody = z.object({ refresh_token: Token });

export const LogoutBody = z.object({ refresh_token: Token.optional() });

export const PasswordResetStartBody = z.object({ email });

export const PasswordResetBody = z.object({ token: linkToken, password: Password });

export const PasswordChangeBody = z.object({ current_password: Password, new_password: Password });

export const DeleteAccountBody = z.object({ confirm: z.unknown().optional().meta({ description: 'Your own e-mail address (else 400 `confirmation_required`).' }) });

export const AcceptTermsBody = z.object({ version: z.string().min(1).max(64).optional().meta({ description: 'The version read; another than the one in force is 409 `terms_version_mismatch`.' }) });

// ---- answers ----

const Delivery = z.enum(['email', 'log']).meta({ description: '`email` when mailed, `log` on a stack without a mail server (the mail is written to the log).' });

/** The Terms as a sign-up start shows them. */
const TermsShown = z.object({ version: z.string(), url: z.string(), privacy_url: z.string(), note: z.string() });

const PendingOrganization = z.object({ org_id: Id, name: z.string(), handle: z.string(), status: z.literal('pending') });

const Role = z.enum(['admin', 'member']);

const JoinedVia = z.string().meta({ description: 'How the person came to the organisation (`creator`, `invitation`, `domain`, …).' });

/** The spec's session shape: a token pair and who the person is. */
export const LoginSession = z.object({
  access_token: z.string().meta({ description: 'RS256 JWT with `sub`, `email`, `kind`, `sid`.' }),
  token_type: z.literal('Bearer'),
  expires_in: z.int().meta({ description: 'Seconds the access token lives (900).' }),
  refresh_token: z.string().meta({ description: '`rt_ses_…`; rotated on every refresh.' }),
  refresh_expires_in: z.int().meta({ description: 'Seconds the refresh token lives (30 days, sliding).' }),
  session_id: Id,
  principal_id: Id,
  principal: z.object({ principal_id: Id, kind: z.literal('human'), email: z.string().nullable() }),
  organization: z.object({ org_id: Id, name: z.string(), handle: z.string(), role: Role, joined_via: JoinedVia }).nullable()
    .meta({ description: 'The person\'s first organisation; null before onboarding.' }),
  terms: z.object({ version: z.string(), accepted: z.boolean(), url: z.string() }),
  next: z.array(z.string()),
}).meta({ id: 'LoginSession' });

/** The Terms in force and where the caller stands. */
const TermsStanding = z.object({
  version: z.string(),
  url: z.string(),
  privacy_url: z.string(),
  accepted: z.boolean(),
  accepted_version: z.string().nullable(),
  accepted_at: IsoTime.nullable(),
}).meta({ id: 'TermsStanding' });


const IdentityHealth = z.object({
  ok: z.boolean(),
  catalog_ok: z.boolean(),
  issuer: z.string(),
  kid: z.string().nullable().meta({ description: 'The signing key in use; null when none could be read.' }),
}).meta({ id: 'IdentityHealth' });

const SessionParams = z.object({ session_id: Id.meta({ description: 'The session\'s id (`ses_…`)' }) });

/** What making the account's first catalog may refuse (onboarding: packages/catalogs). */
const ONBOARDING_ERRORS = ['handle_taken', 'limit_exceeded', 'quota_exceeded', 'creation_in_progress', 'bucket_leftover_from_deletion', 'storage_error', 'provisioning'] as const;
const PASSWORD_RULES = ['password_too_short', 'password_too_long', 'password_contains_identity'] as const;

export const account = {
  tag: 'Account',
  description: 'Sign-up (an e-mail code, or a password link), recovery of an API key by e-mail code, login sessions (login, refresh, logout, listing and ending them), password reset and change, the Terms, deleting your account, and the deployment\'s health, auth settings and Iceberg format versions.',
  operations: operations([
    // ---- sign-up and recovery ----
    {
      method: 'post', path: '/v1/signup/start', id: 'startEmailSignup', service: 'identity',
      summary: 'Start a sign-up: mail a six-digit code',
      description: 'Nothing is created until the code is verified. With `organization_name` or `handle` the organisation is reserved now (pending, handle held while the code lives). An address an organisation already wants (a pending invitation, a claimed open domain) joins it instead (`will_join`). Limits: one code per 60 s; 5 starts an hour per address and per caller address (shared with recovery and password sign-up and reset).',
      auth: ['none'],
      body: EmailSignupStartBody,
      responses: {
        202: {
          description: 'A code is on its way.',
          schema: z.object({
            email: z.string(),
            workspace: z.string().meta({ description: 'The project name the verify makes (`workspace`, else the organisation name, the handle, or the address\'s local part).' }),
            delivery: Delivery,
            organization: PendingOrganization.optional().meta({ description: 'The reserved organisation, when the form named one.' }),
            will_join: z.object({ org_id: Id, name: z.string(), handle: z.string() }).optional().meta({ description: 'The organisation the person will join instead.' }),
            terms: TermsShown,
            next: z.array(z.string()),
            note: z.string(),
            expires_in: z.int().meta({ description: 'Seconds the code lives (600).' }),
            code_length: z.int(),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'disposable_email', 'already_exists', 'handle_taken', 'limit_exceeded', 'rate_limited', 'mail_error'],
    },
    {
      method: 'post', path: '/v1/signup/verify', id: 'verifyEmailSignup', service: 'identity',
      summary: 'Verify the code: make the account, its API key, organisation, project and catalog `lake`',
      description: 'Five wrong codes spend it (`attempts_left` in the 401). An invitation or an open claimed domain places the person in that organisation, which makes nothing of theirs. The API key is shown this once.',
      auth: ['none'],
      body: EmailSignupVerifyBody,
      responses: {
        201: {
          description: 'The account, with its first API key.',
          schema: z.object({
            api_key: z.string().meta({ description: 'The secret, shown once.' }),
            api_key_note: z.string(),
            principal_id: Id,
            project_id: Id.nullable(),
            warehouse_id: Id.nullable(),
            organization: z.object({ org_id: Id, role: Role, joined_via: JoinedVia }),
            connection: OnboardingConnection,
            next: z.array(z.string()),
            terms: z.object({ version: z.string(), accepted: z.literal(true), url: z.string() }),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'terms_required', 'no_pending_signup', 'code_expired', 'invalid_code', 'already_exists', ...ONBOARDING_ERRORS],
    },
    {
      method: 'post', path: '/v1/recover/start', id: 'startRecovery', service: 'identity',
      summary: 'Start recovering an API key: mail a code',
      description: 'The same answer whether or not the address has an account (only `delivery` differs). Same limits as the sign-up start.',
      auth: ['none'],
      body: RecoverStartBody,
      responses: {
        202: {
          description: 'A code is on its way (if the address has an account).',
          schema: z.object({
            email: z.string(),
            delivery: z.enum(['email', 'log', 'smtp']).meta({ description: '`email` when mailed, `log` on a stack without a mail server, `smtp` when there is no account and nothing was sent.' }),
            expires_in: z.int(),
            next: z.array(z.string()),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'rate_limited', 'mail_error'],
    },
    {
      method: 'post', path: '/v1/recover/verify', id: 'verifyRecovery', service: 'identity',
      summary: 'Verify the recovery code: a new API key',
      description: 'Earlier keys keep working until revoked. The new key is shown this once.',
      auth: ['none'],
      body: RecoverVerifyBody,
      responses: {
        200: {
          description: 'The new API key, shown this once.',
          schema: z.object({ api_key: z.string(), key_id: Id, principal_id: Id, note: z.string() }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'no_pending_recovery', 'code_expired', 'invalid_code'],
    },

    // ---- password sign-up, login and sessions ----
    {
      method: 'post', path: '/v1/auth/signup', id: 'signUpWithPassword', service: 'identity',
      summary: 'Sign up with a password: mail a set-password link',
      description: 'Reserves the organisation (pending, handle held for the link\'s 3 days) and mails a link to `/app/welcome?token=…`. An address with a pending invitation, or on a claimed open domain, joins that organisation instead (`will_join`; the organisation fields are ignored).',
      auth: ['none'],
      body: PasswordSignupBody,
      responses: {
        202: {
          description: 'The link is on its way.',
          schema: z.object({
            email: z.string(),
            delivery: Delivery,
            expires_in: z.int().meta({ description: 'Seconds the link works (259200).' }),
            organization: PendingOrganization.optional(),
            will_join: z.object({ org_id: Id, name: z.string(), handle: z.string(), role: Role, via: z.enum(['invitation', 'domain']) }).optional(),
            note_join: z.string().optional(),
            terms: TermsShown,
            next: z.array(z.string()),
            note: z.string(),
            return_to: z.string().nullable(),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'disposable_email', 'already_exists', 'handle_taken', 'limit_exceeded', 'rate_limited', 'mail_error'],
    },
    {
      method: 'post', path: '/v1/auth/password/set', id: 'setFirstPassword', service: 'identity',
      summary: 'Set the first password from the welcome link: the account, its organisation and a session',
      description: 'Password 12 to 256 characters, not containing the address or the organisation\'s name (a refused password leaves the link unspent). Makes the account, activates the reserved organisation (or joins the inviting or open-domain one), a project and the catalog `lake`, and records the Terms shown. `Cache-Control: no-store`.',
      auth: ['none'],
      body: SetFirstPasswordBody,
      responses: {
        200: {
          description: 'A session, with the catalog the sign-up made.',
          schema: LoginSession.extend({
            warehouse: z.object({ warehouse_id: Id, name: z.literal('lake'), project_id: Id.nullable(), created: z.boolean() }).nullable(),
            return_to: z.string().nullable(),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'invalid_login_token', 'token_expired', ...PASSWORD_RULES, 'already_exists', ...ONBOARDING_ERRORS, 'mfa_enrolment_required'],
    },
    {
      method: 'post', path: '/v1/auth/login', id: 'loginWithPassword', service: 'identity',
      summary: 'Log in with e-mail and password: a session',
      description: 'Unknown address, wrong password and an account without a password are the same 401 `invalid_login`. Limits: 10 failures an hour per address (a caller address the person signed in from before is still let through), 120 attempts an hour per caller address. A right password of an account with a second factor is 401 `mfa_required` with an `mfa_token` for POST /v1/auth/login/mfa; of a member without one in an organisation that requires it, 401 `mfa_enrolment_required` with an `enrol_token` for POST /v1/auth/mfa/totp/start. `Cache-Control: no-store`.',
      auth: ['none'],
      body: LoginBody,
      responses: { 200: { description: 'A new session.', schema: LoginSession } },
      errors: ['invalid_value', 'missing_field', 'invalid_login', 'principal_suspended', 'rate_limited', 'mfa_required', 'mfa_enrolment_required', 'mfa_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/refresh', id: 'refreshSession', service: 'identity',
      summary: 'Refresh a session: a new access token and a rotated refresh token',
      description: 'The expiry slides 30 days. A rotated-out token used again ends the session (`refresh_reused`); two refreshes racing with one token are told `refresh_raced` and the session lives on. `Cache-Control: no-store`.',
      auth: ['none'],
      body: RefreshSessionBody,
      responses: { 200: { description: 'The same session with a new pair.', schema: LoginSession } },
      errors: ['invalid_value', 'missing_field', 'invalid_refresh_token', 'refresh_reused', 'refresh_raced', 'session_revoked', 'session_expired'],
    },
    {
      method: 'post', path: '/v1/auth/logout', id: 'logoutSession', service: 'identity',
      summary: 'Log out: end a session',
      description: 'By `refresh_token`, or, without a body, the session of the access token the call carries (`Authorization: Bearer`). The session\'s access tokens stop at their next request. An older token of the session\'s chain ends it too, answered 401 `refresh_reused`.',
      auth: ['none', 'session'],
      bodyOptional: true,
      body: LogoutBody,
      responses: { 200: { description: 'The session is ended.', schema: z.object({ revoked: z.literal(true), session_id: Id }) } },
      errors: ['invalid_value', 'missing_field', 'invalid_refresh_token', 'refresh_reused', 'unauthorized', 'session_revoked', 'session_expired'],
    },
    {
      method: 'get', path: '/v1/auth/sessions', id: 'listSessions', service: 'identity',
      summary: 'List your live login sessions',
      auth: ['api_key', 'session', 'oauth'],
      responses: {
        200: {
          description: 'Your live sessions; `current` marks the one making the call.',
          schema: z.object({
            sessions: z.array(z.object({
              session_id: Id,
              created_at: IsoTime,
              last_used_at: IsoTime,
              expires_at: IsoTime,
              user_agent: z.string().nullable(),
              ip: z.string().nullable(),
              current: z.boolean(),
            })),
            count: z.int(),
          }),
        },
      },
      errors: [],
    },
    {
      method: 'delete', path: '/v1/auth/sessions/{session_id}', id: 'endSession', service: 'identity',
      summary: 'End one of your sessions',
      description: 'Its access tokens stop at their next request. Another account\'s session, or one already ended, is 404.',
      auth: ['api_key', 'session', 'oauth'],
      params: SessionParams,
      responses: { 200: { description: 'The session is ended.', schema: z.object({ session_id: Id, revoked: z.literal(true) }) } },
      errors: ['session_not_found'],
    },

    // ---- password reset and change ----
    {
      method: 'post', path: '/v1/auth/password/reset/start', id: 'startPasswordReset', service: 'identity',
      summary: 'Start a password reset: mail a 30-minute link',
      description: 'The same answer whether or not an account exists; an account without a password gets the same link (its first password). Limits shared with the sign-up starts.',
      auth: ['none'],
      body: PasswordResetStartBody,
      responses: {
        202: {
          description: 'A link is on its way (if the address has an account).',
          schema: z.object({ email: z.string(), delivery: Delivery, expires_in: z.int().meta({ description: 'Seconds the link works (1800).' }), next: z.array(z.string()) }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'rate_limited', 'mail_error'],
    },
    {
      method: 'post', path: '/v1/auth/password/reset', id: 'resetPassword', service: 'identity',
      summary: 'Reset the password from the mailed link: every session ended, a fresh one returned',
      description: 'A refused password leaves the link unspent. A notice is mailed. An account with a second factor gets no session here: the password is changed, and the answer is 401 `mfa_required` with an `mfa_token` for POST /v1/auth/login/mfa (or `mfa_enrolment_required`, as the login). `Cache-Control: no-store`.',
      auth: ['none'],
      body: PasswordResetBody,
      responses: {
        200: {
          description: 'A new session.',
          schema: LoginSession.extend({ sessions_revoked: z.int(), first_password: z.boolean() }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'invalid_login_token', 'token_expired', ...PASSWORD_RULES, 'mfa_required', 'mfa_enrolment_required', 'mfa_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/password/change', id: 'changePassword', service: 'identity',
      summary: 'Change your password: every other session ended',
      description: 'A person\'s act: an agent\'s key or a tool host\'s token is 403 `forbidden`. The current password is checked under the login\'s limits. A notice is mailed.',
      auth: ['api_key', 'session'],
      body: PasswordChangeBody,
      responses: {
        200: {
          description: 'Changed.',
          schema: z.object({ changed: z.literal(true), other_sessions_revoked: z.int(), password_changed_at: IsoTime }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'forbidden', 'no_password_set', 'invalid_login', 'rate_limited', ...PASSWORD_RULES],
    },

    // ---- the account and the Terms ----
    {
      method: 'delete', path: '/v1/me', id: 'deleteAccount', service: 'identity',
      summary: 'Delete your account',
      description: 'A person\'s act, confirmed with their own address. Immediate: every key and session revoked, memberships and grants removed, agents of organisations left empty stopped; later credentials answer 401 `account_deleted`. The last admin of an organisation with other members is refused.',
      auth: ['api_key', 'session'],
      body: DeleteAccountBody,
      responses: {
        200: {
          description: 'Deleted.',
          schema: z.object({
            principal_id: Id,
            deleted: z.literal(true),
            keys_revoked: z.int(),
            sessions_revoked: z.int(),
            memberships_removed: z.int(),
            grants_removed: z.int(),
            organizations_left_empty: z.array(Id),
            agents_stopped: z.int(),
            note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'forbidden', 'confirmation_required', 'last_admin'],
    },
    {
      method: 'get', path: '/v1/terms', id: 'getTerms', service: 'identity',
      summary: 'The Terms in force and whether you accepted them',
      auth: ['api_key', 'session', 'oauth'],
      responses: { 200: { description: 'The Terms and your acceptance.', schema: TermsStanding } },
      errors: [],
    },
    {
      method: 'post', path: '/v1/terms/accept', id: 'acceptTerms', service: 'identity',
      summary: 'Accept the Terms in force',
      description: 'A person\'s act: agents\' and tool hosts\' tokens are 403 `not_a_person`.',
      auth: ['api_key', 'session'],
      bodyOptional: true,
      body: AcceptTermsBody,
      responses: {
        200: {
          description: 'Accepted.',
          schema: TermsStanding.extend({ accepted: z.literal(true), accepted_version: z.string(), accepted_at: IsoTime }),
        },
      },
      errors: ['invalid_value', 'not_a_person', 'terms_version_mismatch'],
    },

    // ---- the deployment ----
    {
      method: 'get', path: '/v1/auth/config', id: 'getAuthConfig', service: 'identity',
      summary: 'How to sign up and sign in on this deployment',
      description: 'Whether password login is served, the sign-up modes, the device-login and token endpoints, how mail is delivered, and the external OpenID Connect issuers a self-hosted deployment trusts.',
      auth: ['none'],
      responses: {
        200: {
          description: 'The deployment\'s auth settings.',
          schema: z.object({
            issuer: z.string(),
            password_login: z.literal(true),
            signup: z.literal(true),
            signup_modes: z.array(z.enum(['email_code', 'password', 'one_call'])).meta({ description: '`one_call` only where the one-call POST /v1/signup is open.' }),
            login_url: z.string(),
            refresh_url: z.string(),
            device_authorization: z.literal(true),
            device_authorization_url: z.string(),
            second_factor: z.object({
              totp: z.boolean(), backup_codes: z.boolean(), passkeys: z.boolean(),
              login_step_url: z.string(), reauth_url: z.string(),
            }).meta({ description: 'The second factors served: an authenticator app (TOTP) with backup codes, and passkeys.' }),
            passkeys: z.object({
              rp_id: z.string(), origins: z.array(z.string()).meta({ description: 'The pages a passkey is signed from (a local stack on 127.0.0.1: http://localhost:<port>).' }),
              passwordless_login: z.boolean(),
            }),
            device_token_url: z.string(),
            api_keys: z.literal(true),
            token_endpoint: z.string(),
            mail_delivery: Delivery,
            sign_in_providers: z.array(z.object({ id: z.string(), name: z.string(), issuer: z.string(), start_url: z.string() }))
              .meta({ description: 'OpenID Connect providers a person can sign in with (POST start_url from a page of this deployment).' }),
            trusted_issuers: z.array(z.object({ issuer: z.string(), audiences: z.array(z.string()) })).meta({ description: 'Issuers whose bearer tokens act as the person their subject is linked to (a token must name one of the audiences).' }),
            terms: z.object({ version: z.string(), url: z.string(), privacy_url: z.string() }).meta({ description: 'The Terms in force, which a sign-up accepts; the pages show them before it.' }),
            note: z.string(),
          }),
        },
      },
      errors: [],
    },
    {
      method: 'get', path: '/v1/config/formats', id: 'listFormatVersions', service: 'identity',
      summary: 'The Iceberg format versions a table can have, and which engines write and read each',
      description: 'Engine strings are machine-parseable `<engine>[>=<version>[+<lib>-<version>]]`. `Cache-Control: public, max-age=3600`.',
      auth: ['none'],
      responses: {
        200: {
          description: 'The format versions.',
          schema: z.object({
            default_format_version: z.int(),
            versions: z.array(z.object({
              format_version: z.int(),
              default: z.boolean(),
              writers: z.array(z.string()),
              readers: z.array(z.string()),
              note: z.string(),
            })),
            grammar: z.string(),
            note: z.string(),
          }),
        },
      },
      errors: [],
    },
    {
      method: 'get', path: '/healthz', id: 'getHealth', service: 'identity',
      summary: 'Liveness: the state database and the catalog answer',
      description: 'Served by identity behind the gateway. `ok` is false, and the status 503, while the database, the catalog or the signing key does not answer.',
      auth: ['none'],
      responses: {
        200: { description: 'Live.', schema: IdentityHealth },
        503: { description: 'Unavailable: `ok` is false (the database, the catalog or the signing key does not answer); the same body as 200.', schema: IdentityHealth },
      },
      errors: [],
    },
  ]),
};
