import { z } from 'zod';
import { operations } from '../operation';
import { Id, IsoTime } from '../shapes';
import { LoginSession } from './account';

// Spec: Authentication 8 — the passkey routes, named by their error codes
// only; the shapes are Floe's. WebAuthn's own JSON forms (the options a
// browser passes to navigator.credentials, and `credential.toJSON()` of its
// answer) are carried as they are. Served by identity
// (services/identity/src/routes/passkeys.ts).

/** A browser's answer: `PublicKeyCredential.toJSON()`. */
const CredentialJson = z.looseObject({
  id: z.string().min(1).max(1024),
  rawId: z.string().min(1).max(1024),
  type: z.literal('public-key'),
  response: z.looseObject({ clientDataJSON: z.string().min(1).max(16_384) }),
}).meta({ description: 'What `PublicKeyCredential.toJSON()` gives in the browser.' });

const PasskeyName = z.string().trim().min(1).max(100);
const CeremonyId = z.string().trim().min(1).max(100).meta({ description: 'From the options answer: names the challenge the answer signs.' });

export const PasskeyRegisterBody = z.object({ ceremony_id: CeremonyId, response: CredentialJson, name: PasskeyName.optional().meta({ description: 'What to call it (default `Passkey <n>`).' }) });
export const PasskeyRenameBody = z.object({ name: PasskeyName });
export const PasskeyParams = z.object({ passkey_id: z.string().min(1).max(1024).meta({ description: 'The passkey\'s credential id (base64url).' }) });
export const PasskeySignBody = z.object({ ceremony_id: CeremonyId, response: CredentialJson });
export const PasskeyFactorOptionsBody = z.object({ mfa_token: z.string().trim().min(1).max(200).meta({ description: 'From the login answered 401 `mfa_required`.' }) });

const Passkey = z.object({
  passkey_id: Id,
  name: z.string(),
  created_at: IsoTime,
  last_used_at: IsoTime.nullable(),
  device_type: z.enum(['singleDevice', 'multiDevice']).meta({ description: '`multiDevice`: a synced passkey.' }),
  backed_up: z.boolean(),
}).meta({ id: 'Passkey' });

const Options = z.record(z.string(), z.unknown()).meta({ description: 'WebAuthn options JSON: pass to `PublicKeyCredential.parseCreationOptionsFromJSON` / `parseRequestOptionsFromJSON`.' });
/** A ceremony: WebAuthn options under the id the answer is sent with. */
const SigningOptions = z.object({ ceremony_id: Id, options: Options, expires_in: z.int() }).meta({ id: 'PasskeyCeremony' });

const SESSION_ONLY = ['unauthorized', 'session_required', 'not_a_person'] as const;

export const passkeys = {
  tag: 'Passkeys',
  description: 'Passkeys (WebAuthn): register them from a login session, sign in with one instead of a password, or use one as the login\'s second step and to reauthenticate.',
  operations: operations([
    {
      method: 'get', path: '/v1/auth/passkeys', id: 'listPasskeys', service: 'identity',
      summary: 'Your passkeys',
      auth: ['session'],
      responses: { 200: { description: 'Oldest first.', schema: z.object({ passkeys: z.array(Passkey), count: z.int(), limit: z.int() }) } },
      errors: [...SESSION_ONLY],
    },
    {
      method: 'post', path: '/v1/auth/passkeys/register/options', id: 'startPasskeyRegistration', service: 'identity',
      summary: 'Options for registering a passkey in this browser',
      description: 'From a login session that signed in within 10 minutes (else 401 `reauth_required`). Your passkeys are excluded, so an authenticator holding one answers that it is registered. The challenge lasts 5 minutes.',
      auth: ['session'],
      responses: { 200: { description: 'Pass `options` to navigator.credentials.create, then send the answer with `ceremony_id`.', schema: SigningOptions } },
      errors: [...SESSION_ONLY, 'reauth_required', 'passkey_limit'],
    },
    {
      method: 'post', path: '/v1/auth/passkeys', id: 'registerPasskey', service: 'identity',
      summary: 'Register a passkey: the browser\'s answer to the options',
      description: 'At most ten per account (409 `passkey_limit`, also for registrations racing each other). The answer must come from an origin the deployment lists (403 `origin_not_allowed`); a credential registered already is 409 `passkey_exists`.',
      auth: ['session'],
      body: PasskeyRegisterBody,
      responses: { 201: { description: 'The passkey is registered.', schema: Passkey } },
      errors: ['invalid_value', 'missing_field', ...SESSION_ONLY, 'reauth_required', 'invalid_passkey', 'passkey_exists', 'passkey_limit', 'origin_not_allowed'],
    },
    {
      method: 'patch', path: '/v1/auth/passkeys/{passkey_id}', id: 'renamePasskey', service: 'identity',
      summary: 'Rename a passkey',
      auth: ['session'],
      params: PasskeyParams,
      body: PasskeyRenameBody,
      responses: { 200: { description: 'Renamed.', schema: Passkey } },
      errors: ['invalid_value', 'missing_field', ...SESSION_ONLY, 'passkey_not_found'],
    },
    {
      method: 'delete', path: '/v1/auth/passkeys/{passkey_id}', id: 'deletePasskey', service: 'identity',
      summary: 'Delete a passkey',
      description: 'From a login session that signed in within 10 minutes. 409 `mfa_required_by_policy` when it is your last second factor and an organisation of yours requires one.',
      auth: ['session'],
      params: PasskeyParams,
      responses: { 200: { description: 'Deleted.', schema: z.object({ passkey_id: Id, deleted: z.literal(true) }) } },
      errors: [...SESSION_ONLY, 'reauth_required', 'passkey_not_found', 'mfa_required_by_policy'],
    },
    {
      method: 'post', path: '/v1/auth/passkeys/login/options', id: 'startPasskeyLogin', service: 'identity',
      summary: 'Options for signing in with a passkey (no password)',
      description: '403 `passkeys_disabled` where the deployment does not sign in with passkeys (FLOE_PASSKEY_LOGIN=false).',
      auth: ['none'],
      responses: { 200: { description: 'Pass `options` to navigator.credentials.get, then send the answer with `ceremony_id`.', schema: SigningOptions } },
      errors: ['passkeys_disabled', 'rate_limited'],
    },
    {
      method: 'post', path: '/v1/auth/passkeys/login', id: 'loginWithPasskey', service: 'identity',
      summary: 'Sign in with a passkey: a session',
      description: 'A passkey is a second factor in itself: no code is asked, and an organisation requiring a second factor is satisfied. `Cache-Control: no-store`.',
      auth: ['none'],
      body: PasskeySignBody,
      responses: { 200: { description: 'A new session.', schema: LoginSession.extend({ second_factor: z.object({ method: z.literal('passkey') }) }) } },
      errors: ['invalid_value', 'missing_field', 'passkeys_disabled', 'invalid_passkey', 'origin_not_allowed', 'principal_suspended', 'rate_limited'],
    },
    {
      method: 'post', path: '/v1/auth/login/mfa/passkey-options', id: 'startPasskeySecondStep', service: 'identity',
      summary: 'Options for the login\'s second step with one of the account\'s passkeys',
      description: 'Send the answer to POST /v1/auth/login/mfa as `passkey: {ceremony_id, response}` with the `mfa_token`.',
      auth: ['none'],
      body: PasskeyFactorOptionsBody,
      responses: { 200: { description: 'Options limited to the account\'s passkeys.', schema: SigningOptions } },
      errors: ['invalid_value', 'missing_field', 'invalid_mfa_token', 'mfa_not_enabled'],
    },
    {
      method: 'post', path: '/v1/auth/reauth/passkey-options', id: 'startPasskeyReauth', service: 'identity',
      summary: 'Options for reauthenticating this session with one of your passkeys',
      description: 'Send the answer to POST /v1/auth/reauth as `passkey: {ceremony_id, response}` (no password needed).',
      auth: ['session'],
      responses: { 200: { description: 'Options limited to your passkeys.', schema: SigningOptions } },
      errors: [...SESSION_ONLY, 'mfa_not_enabled'],
    },
  ]),
};
