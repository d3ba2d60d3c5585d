/** Lifetime of a token from POST /v1/tokens (Authentication 1). */
export const CONTROL_TOKEN_LIFETIME_SECONDS = 900;

/**
 * Control-plane tokens carry the base_url as audience; catalog tokens (a later
 * surface) carry the catalog's, so neither is accepted by the other.
 */
export const CONTROL_TOKEN_AUDIENCE_OF = (baseUrl: string): string => baseUrl;

export interface ControlTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  iat: number;
  exp: number;
  jti: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator';
  email?: string;
  /** The API key this token was exchanged for: revoking the key ends its tokens too. */
  key_id?: string;
  /** Login session id (human sessions); for an OAuth access token (kind mcp), its refresh family. */
  sid?: string;
  /** OAuth access tokens: the person who consented, the client and the space-separated scopes. */
  act?: { sub?: string };
  client_id?: string;
  scope?: string;
}

/**
 * The tool server's OAuth scopes, one home for all who read them: the
 * authorization server offers them (identity), the tool server publishes and
 * checks them, the control plane caps a token without the write one at read.
 */
export const OAUTH_SCOPES = ['catalogs:read', 'catalogs:write'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** Whether a token's scopes let it change anything (`catalogs:write`). */
export const scopesAllowWrites = (scopes: readonly string[]): boolean => scopes.includes('catalogs:write');
