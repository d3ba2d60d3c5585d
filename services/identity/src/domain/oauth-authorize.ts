import { randomBytes } from 'node:crypto';
import type { AttemptLimit } from '@floe/auth';
import { insertOAuthRequest } from '../store/oauth-requests';
import { resolveClient, type ClientDeps } from './oauth-clients';
import { DEFAULT_SCOPE, OAuthError, oauthRateLimited, SCOPES, type OAuthErrorCode } from './oauth-server';
import { redirectListed } from './oauth-redirects';

// Spec: GET /oauth/authorize. Checked in this order: the address's budget
// (120 an hour); the client (400 invalid_client) and its redirect URI (400
// invalid_request) — refused in place, never redirected, as the redirect is
// not yet known to be the client's; then everything else, refused by a 302
// to the redirect URI with `error`, `error_description`, `state` and `iss`
// (RFC 9207). A request that passes becomes a consent request (15 minutes)
// and the person is sent to the consent page.

export const AUTHORIZE_PER_HOUR = 120;
export const CONSENT_REQUEST_SECONDS = 15 * 60;

export interface AuthorizeDeps extends ClientDeps {
  authorizeAttempts: AttemptLimit;
  config: ClientDeps['config'] & { baseUrl: string; oauth: { mcpUrl: string } };
}

/** The query as the route read it: each parameter once, or undefined. */
export type AuthorizeQuery = Partial<Record<'client_id' | 'redirect_uri' | 'response_type' | 'code_challenge' | 'code_challenge_method' | 'resource' | 'scope' | 'state', string>>;

/** PKCE: S256 of a 43-128 character verifier is 43 base64url characters (RFC 7636 4.2). */
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
const STATE_MAX = 1024;

/** Where the browser goes: the consent page, or back to the client with an error. */
export async function authorize(d: AuthorizeDeps, ip: string, q: AuthorizeQuery): Promise<string> {
  const wait = await d.authorizeAttempts.take(ip);
  if (wait !== null) throw oauthRateLimited(wait, `at most ${AUTHORIZE_PER_HOUR} authorization requests an hour from one address`);

  // validate: the client and its redirect, refused in place
  if (!q.client_id) throw new OAuthError(400, 'invalid_client', 'client_id is required');
  const client = await resolveClient(d, q.client_id);
  if (!q.redirect_uri) throw new OAuthError(400, 'invalid_request', 'redirect_uri is required');
  if (!redirectListed(client.redirect_uris, q.redirect_uri)) {
    throw new OAuthError(400, 'invalid_request', `redirect_uri ${q.redirect_uri.slice(0, 300)} is not one the client lists`);
  }

  // validate: the rest, refused by a redirect the client reads
  const back = (error: OAuthErrorCode, description: string) => clientRedirect(q.redirect_uri!, { error, error_description: description, state: q.state, iss: d.config.baseUrl });
  if (q.state !== undefined && q.state.length > STATE_MAX) return back('invalid_request', `state is longer than ${STATE_MAX} characters`);
  if (q.response_type !== 'code') return back('unsupported_response_type', 'response_type must be code');
  if (!q.code_challenge || !CHALLENGE.test(q.code_challenge)) return back('invalid_request', 'code_challenge is required: the S256 PKCE challenge, 43 base64url characters');
  if (q.code_challenge_method !== 'S256') return back('invalid_request', 'code_challenge_method must be S256');
  if (!q.resource) return back('invalid_request', `resource is required: ${d.config.oauth.mcpUrl}`);
  if (q.resource !== d.config.oauth.mcpUrl) return back('invalid_target', `resource must be ${d.config.oauth.mcpUrl}, the only resource this server issues tokens for`);
  const scopes = q.scope === undefined || q.scope.trim() === '' ? DEFAULT_SCOPE : [...new Set(q.scope.trim().split(/ +/))];
  const unknown = scopes.filter((s) => !(s in SCOPES));
  if (unknown.length) return back('invalid_scope', `unknown scope ${unknown[0].slice(0, 100)}; this server offers ${Object.keys(SCOPES).join(' ')}`);

  // act
  const id = `oar_${randomBytes(16).toString('hex')}`;
  const now = Date.now();
  await insertOAuthRequest(d.prisma, {
    id, clientId: client.client_id, client, redirectUri: q.redirect_uri, state: q.state ?? null, codeChallenge: q.code_challenge,
    resource: q.resource, scope: scopes.join(' '), createdAt: new Date(now), expiresAt: new Date(now + CONSENT_REQUEST_SECONDS * 1000), createdIp: ip,
  });
  return `${d.config.baseUrl}/app/authorize?request=${id}`;
}

/** The client's redirect URI with `params` added to its query (those undefined left out). */
export function clientRedirect(redirectUri: string, params: Record<string, string | undefined>): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) u.searchParams.set(k, v);
  return u.href;
}
