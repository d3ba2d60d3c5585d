import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { OAUTH_SCOPES } from '@floe/auth';

// RFC 9728 protected-resource metadata of the tool server, and the
// WWW-Authenticate challenge that points to it. One home for both: the
// challenge's `resource_metadata` must be where the document is served, and
// an MCP client finds the authorization server only by following it (then
// `{issuer}/.well-known/oauth-authorization-server`, answered by identity).

/** Where the document of `mcpUrl` lives: the path-suffixed form, `{origin}/.well-known/oauth-protected-resource{path}`. */
export function metadataUrlOf(mcpUrl: string): string {
  return getOAuthProtectedResourceMetadataUrl(new URL(mcpUrl));
}

/** The paths this server answers the document at: the path-suffixed one, and the bare one for clients that try it first. */
export function metadataPathsOf(mcpUrl: string): string[] {
  const suffixed = new URL(metadataUrlOf(mcpUrl)).pathname;
  return [...new Set([suffixed, '/.well-known/oauth-protected-resource'])];
}

export function metadataDocument(o: { mcpUrl: string; baseUrl: string }) {
  return {
    resource: o.mcpUrl,
    authorization_servers: [o.baseUrl],
    scopes_supported: [...OAUTH_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Floe MCP tool server',
  };
}

/**
 * The challenge of a 401 (RFC 6750 §3, RFC 9728 §5.1). `error` only when a
 * token was sent: a request without one gets the bare challenge.
 */
export function challenge(metadataUrl: string, refusal?: { error: 'invalid_token'; description: string }): string {
  const parts = [`resource_metadata="${metadataUrl}"`];
  if (refusal) parts.push(`error="${refusal.error}"`, `error_description="${refusal.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}
