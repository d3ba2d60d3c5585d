/** The principal a request acts as, resolved from its credential by packages/auth. */
export interface Caller {
  principalId: string;
  kind: 'human' | 'agent' | 'mcp' | 'operator';
  email: string | null;
  /** How the caller proved itself. */
  via: 'api_key' | 'token';
  /** The API key used directly, or the one a token was minted from. */
  keyId: string | null;
  sessionId: string | null;
  /**
   * An OAuth access token for a tool server (kind mcp): its refresh family
   * (`sid`), the person who consented (`act.sub`), the client, and its scopes
   * (`catalogs:read` alone caps every level at read).
   */
  oauth?: { familyId: string; personId: string; clientId: string; scopes: string[] };
}
