import { z } from 'zod';
import { operations } from '../operation';
import { Id, IsoTime } from '../shapes';
import { LoginSession } from './account';

// Sign-in with an OpenID Connect provider: the spec's "Google sign-in
// routes", named by their error codes only; the shapes are Floe's, and they
// serve every provider the deployment configures (GET /v1/auth/config
// `sign_in_providers`; Google's issuer is https://accounts.google.com). The
// error codes keep the spec's Google names for every provider. Served by
// identity (services/identity/src/routes/provider-sign-in.ts).

export const ProviderParams = z.object({ provider: z.string().regex(/^[a-z][a-z0-9-]{0,31}$/).meta({ description: 'The provider\'s id, as GET /v1/auth/config lists it.', example: 'google' }) });
export const IdentityParams = z.object({ identity_id: z.string().min(1).max(100) });
export const ProviderStartBody = z.object({
  accept_terms: z.boolean().optional().meta({ description: 'Exactly true accepts the Terms, which an address new to Floe needs to make its account (else the callback is 400 `terms_required`).' }),
});
export const ProviderCallbackBody = z.object({
  state: z.string().trim().min(1).max(200).meta({ description: 'The `state` the provider sent the browser back with.' }),
  code: z.string().trim().min(1).max(2048).meta({ description: 'The `code` the provider sent the browser back with.' }),
  iss: z.string().trim().min(1).max(500).optional().meta({ description: 'The `iss` it sent too, where it sends one (RFC 9207).' }),
});
export const ProviderIdTokenBody = z.object({
  id_token: z.string().trim().min(1).max(8192).meta({ description: 'An ID token the provider issued to the deployment\'s client id (Google\'s sign-in button hands the page one).' }),
  nonce: z.string().trim().min(1).max(200).optional().meta({ description: 'The nonce the page asked the provider to sign in, when it asked for one: the token must carry it.' }),
  accept_terms: ProviderStartBody.shape.accept_terms,
});
export const ProviderLinkBody = z.object({
  link_token: z.string().trim().min(1).max(200).meta({ description: 'From the callback answered 401 `email_code_required`.' }),
  code: z.string().trim().min(1).max(32).meta({ description: 'The six-digit code mailed to the account\'s address.' }),
});

const SignedInWith = z.object({ provider: z.string(), issuer: z.string(), email: z.string() });
const ProviderSession = LoginSession.extend({
  signed_in_with: SignedInWith,
  account_created: z.boolean(),
  warehouse: z.object({ warehouse_id: Id, name: z.string(), project_id: Id, created: z.boolean() }).nullable().optional()
    .meta({ description: 'A new account\'s catalog `lake`.' }),
});
const Reauthenticated = z.object({ reauthenticated: z.literal(true), session_id: Id, signed_in_at: IsoTime, sensitive_changes_until: IsoTime });
/** What a start answers: where to send the browser. */
const Authorization = z.object({
  provider: z.object({ id: z.string(), name: z.string() }),
  authorization_url: z.string(),
  state: z.string(),
  redirect_uri: z.string(),
  expires_in: z.int(),
  next: z.string(),
});
const AFTER_PROVIDER = ['email_not_verified', 'disposable_email', 'terms_required', 'email_code_required', 'identity_conflict', 'rate_limited', 'mail_error'] as const;
const LinkedIdentity = z.object({
  identity_id: Id,
  provider: z.string().nullable().meta({ description: 'The provider\'s id where the deployment still configures its issuer.' }),
  issuer: z.string(),
  email: z.string().nullable().meta({ description: 'The address the provider gave when the link was made.' }),
  created_at: IsoTime,
  last_used_at: IsoTime.nullable(),
}).meta({ id: 'LinkedIdentity' });

const PROVIDER_ANSWER = ['not_found', 'invalid_state', 'invalid_google_code', 'invalid_id_token', 'google_unavailable'] as const;
const AFTER_SIGN_IN = ['principal_suspended', 'mfa_required', 'mfa_enrolment_required', 'mfa_unavailable'] as const;

export const providerSignIn = {
  tag: 'Sign-in providers',
  description: 'Sign in with an OpenID Connect provider (Google, or any the deployment configures): an address new to Floe makes an account without a password; an existing account is linked once by a code mailed to it.',
  operations: operations([
    {
      method: 'post', path: '/v1/auth/oidc/{provider}/start', id: 'startProviderSignIn', service: 'identity',
      summary: 'Start signing in with a provider: where to send the browser',
      description: 'The provider sends the browser back to `redirect_uri` — the login page (`/app/login`) of the origin the request came from, which must be one the deployment serves its pages at (403 `origin_not_allowed`). State, nonce and PKCE are kept for 10 minutes; one callback spends them.',
      auth: ['none'],
      params: ProviderParams,
      body: ProviderStartBody,
      responses: {
        200: { description: 'Open `authorization_url`.', schema: Authorization },
      },
      errors: ['invalid_value', 'not_found', 'origin_not_allowed', 'google_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/reauth/oidc/{provider}', id: 'startProviderReauth', service: 'identity',
      summary: 'Reauthenticate this login session with the provider you sign in with',
      description: 'For a person who signs in with a provider (and perhaps has no password): the provider is asked to sign them in afresh (`max_age=0`); the callback then answers as POST /v1/auth/reauth does, when the ID token shows a sign-in within 10 minutes by the provider account linked to this person (else 409 `identity_conflict`). 404 `not_found` when the account is not linked to that provider.',
      auth: ['session'],
      params: ProviderParams,
      responses: { 200: { description: 'Open `authorization_url`; the callback answers `reauthenticated`.', schema: Authorization } },
      errors: ['unauthorized', 'session_required', 'not_a_person', 'not_found', 'origin_not_allowed', 'google_unavailable'],
    },
    {
      method: 'post', path: '/v1/auth/oidc/{provider}/callback', id: 'finishProviderSignIn', service: 'identity',
      summary: 'Finish signing in with a provider: the code for a session',
      description: 'A subject linked to an account signs in as that person (an account with a second factor answers 401 `mfa_required`, as a password login does). An address whose account is not linked yet gets a code by mail: 401 `email_code_required` with a `link_token` (then POST /v1/auth/oidc/link). An address new to Floe makes an account without a password — its organisation, project and catalog `lake` — when the start accepted the Terms (else 400 `terms_required`). The provider must vouch for the address (403 `email_not_verified`); a throwaway-mail address is 400 `disposable_email`. A refused state or code takes one of the login\'s attempts of the caller\'s address (429 `rate_limited` once they are spent). `Cache-Control: no-store`.',
      auth: ['none'],
      params: ProviderParams,
      body: ProviderCallbackBody,
      responses: {
        200: {
          description: 'A new session; for a state of POST /v1/auth/reauth/oidc/{provider}, the session reauthenticated.',
          schema: z.union([ProviderSession, Reauthenticated]),
        },
      },
      errors: ['invalid_value', 'missing_field', ...PROVIDER_ANSWER, ...AFTER_PROVIDER, ...AFTER_SIGN_IN],
    },
    {
      method: 'post', path: '/v1/auth/oidc/{provider}/id-token', id: 'signInWithIdToken', service: 'identity',
      summary: 'Sign in with an ID token the provider gave the page',
      description: 'For a provider\'s own sign-in button (Google\'s gives the page an ID token): the token must be signed with the provider\'s published keys, for the deployment\'s client id, unexpired, carry `nonce` when one is sent, and is accepted once (401 `invalid_google_token` otherwise). Then as the callback: a session, `email_code_required` for an account to link, or a new account when `accept_terms` is true. `Cache-Control: no-store`.',
      auth: ['none'],
      params: ProviderParams,
      body: ProviderIdTokenBody,
      responses: { 200: { description: 'A new session.', schema: ProviderSession } },
      errors: ['invalid_value', 'missing_field', 'not_found', 'invalid_google_token', 'google_unavailable', ...AFTER_PROVIDER, ...AFTER_SIGN_IN],
    },
    {
      method: 'post', path: '/v1/auth/oidc/link', id: 'linkProviderIdentity', service: 'identity',
      summary: 'Link a provider\'s sign-in to an existing account with the mailed code',
      description: 'Five wrong codes spend it (401 `invalid_code` with `attempts_left`); it lasts 10 minutes (410 `code_expired`); a link token that waits for nothing is 404 `no_pending_code`. One link per provider per account and one account per provider subject: a link made in the meantime is 409 `identity_conflict`. Then signs in as the callback does. `Cache-Control: no-store`.',
      auth: ['none'],
      body: ProviderLinkBody,
      responses: {
        200: { description: 'Linked, and a new session.', schema: LoginSession.extend({ signed_in_with: SignedInWith, linked: z.literal(true) }) },
      },
      errors: ['invalid_value', 'missing_field', 'no_pending_code', 'code_expired', 'invalid_code', 'identity_conflict', ...AFTER_SIGN_IN],
    },
    {
      method: 'get', path: '/v1/auth/identities', id: 'listLinkedIdentities', service: 'identity',
      summary: 'Your accounts at sign-in providers',
      auth: ['session'],
      responses: { 200: { description: 'Oldest first.', schema: z.object({ identities: z.array(LinkedIdentity) }) } },
      errors: ['unauthorized', 'session_required', 'not_a_person'],
    },
    {
      method: 'delete', path: '/v1/auth/identities/{identity_id}', id: 'unlinkIdentity', service: 'identity',
      summary: 'Unlink an account at a sign-in provider',
      description: 'From a login session that signed in within 10 minutes. 409 `password_required` when it is the account\'s only way in (no password, no other link): set a password first.',
      auth: ['session'],
      params: IdentityParams,
      responses: { 200: { description: 'Unlinked.', schema: z.object({ identity_id: Id, unlinked: z.literal(true) }) } },
      errors: ['unauthorized', 'session_required', 'not_a_person', 'reauth_required', 'not_found', 'password_required'],
    },
  ]),
};
