import { OAUTH_SCOPES, type OAuthScope } from '@floe/auth';
import type { FloeConfig } from '@floe/config';

// Spec: Remote tool-host authorization server (OAuth 2.1). The facts every
// OAuth route shares, in one place: the refusal in the flat form OAuth
// clients parse, the scopes a client may ask for, and the RFC 8414 document
// naming the endpoints.

/** The codes the OAuth routes answer in the flat form `{error, error_description}` (RFC 6749 4.1.2.1, 5.2; RFC 7591 3.2.2; RFC 8707). */
export type OAuthErrorCode =
  | 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'invalid_scope' | 'invalid_target' | 'unsupported_response_type'
  | 'unsupported_grant_type' | 'invalid_client_metadata' | 'invalid_redirect_uri' | 'access_denied' | 'rate_limited' | 'server_error';

/** A refusal of an OAuth route, rendered `{error, error_description}` with `status` (routes/oauth.ts). */
export class OAuthError extends Error {
  constructor(readonly status: number, readonly error: OAuthErrorCode, description: string, readonly headers: Record<string, string> = {}) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const oauthRateLimited = (seconds: number, description: string) =>
  new OAuthError(429, 'rate_limited', description, { 'Retry-After': String(Math.max(1, Math.ceil(seconds))) });

/**
 * The scopes a tool host may ask for, with the words the consent page shows.
 * The person still chooses the catalogs and a level on each; a scope bounds
 * what the token may do with them (read tools only, or read and write tools).
 */
export const SCOPES = {
  'catalogs:read': 'See your catalogs, their namespaces and tables, table schemas, snapshots and usage',
  'catalogs:write': 'Create tables and send rows into your catalogs (within the levels you give)',
} as const satisfies Record<OAuthScope, string>;
export type Scope = OAuthScope;
export const SCOPES_SUPPORTED: Scope[] = [...OAUTH_SCOPES];
/** A request without `scope` asks for reading only. */
export const DEFAULT_SCOPE: Scope[] = ['catalogs:read'];

/** The RFC 8414 document: every field the spec lists; `registration_endpoint` only while dynamic registration is on. */
export function authorizationServerMetadata(config: Pick<FloeConfig, 'baseUrl' | 'oauth'>) {
  const base = config.baseUrl;
  return {
    issuer: base,
    authorization_endpoint: `${base}/oauth/authorize`,
    token_endpoint: `${base}/oauth/token`,
    revocation_endpoint: `${base}/oauth/revoke`,
    jwks_uri: `${base}/jwks.json`,
    ...(config.oauth.dynamicRegistration ? { registration_endpoint: `${base}/oauth/register` } : {}),
    scopes_supported: SCOPES_SUPPORTED,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}
