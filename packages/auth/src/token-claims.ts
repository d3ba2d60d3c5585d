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
