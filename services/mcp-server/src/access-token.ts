import { scopesAllowWrites, type Authenticator } from '@floe/auth';
import { HttpError } from '@floe/http';

// The tool server's one credential: an OAuth access token the identity
// service issued for this resource (RS256, iss = base_url, aud = the MCP URL,
// kind mcp, sub = the token record, act.sub = the person). packages/auth's
// Authenticator judges it as the control plane does — signature, claims, and
// on every request the standing of its record and refresh family (a revoked
// one is refused at once, through the shared credential epoch). What the
// token may do is the control plane's to decide on each tool call.

export interface McpCaller {
  /** The token as presented: forwarded to the control plane, which judges its grants. */
  token: string;
  /** The token record (a principal of kind mcp). */
  recordId: string;
  /** The person who approved it. */
  person: string;
  clientId: string;
  scopes: string[];
  /** Whether the scope lets write tools run (`catalogs:write`). */
  canWrite: boolean;
}

/** The caller of one request, or a 401 HttpError saying why not (an access token of the control plane, not of this tool server, included). */
export async function mcpCallerOf(auth: Authenticator, token: string): Promise<McpCaller> {
  const c = await auth.token(token);
  if (!c.oauth) throw new HttpError(401, 'unauthorized', 'the access token was issued for another resource, not this tool server');
  return { token, recordId: c.principalId, person: c.oauth.personId, clientId: c.oauth.clientId, scopes: c.oauth.scopes, canWrite: scopesAllowWrites(c.oauth.scopes) };
}
