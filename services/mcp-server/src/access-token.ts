import { createHash } from 'node:crypto';
import { errors as joseErrors, jwtVerify } from 'jose';
import type { KeySet } from '@floe/auth';

// The tool server's one credential: an OAuth access token the identity
// service issued for this resource (RS256, iss = base_url, aud = the MCP URL,
// kind mcp, sub = the token record, act.sub = the person). Verified with the
// published signing keys (packages/auth's KeySet, the same keys every
// verifier reads). What the token may do is the control plane's to decide on
// every call; here only whether it is one of ours, for us, and still alive.

export interface McpCaller {
  /** The token as presented: forwarded to the control plane, which judges its grants. */
  token: string;
  /** The token record (a principal of kind mcp). */
  recordId: string;
  /** The person who approved it. */
  person: string;
  clientId: string | null;
  scopes: string[];
  /** Whether the scope lets write tools run (`catalogs:write`). */
  canWrite: boolean;
  /** Seconds since the epoch. */
  expiresAt: number;
}

export class TokenRefused extends Error {}

export class AccessTokens {
  /**
   * Tokens the control plane refused (a revoked record, an ended grant), by
   * SHA-256, until they would have expired anyway. A tool call learns of the
   * refusal inside a JSON-RPC answer already under way; the client learns it
   * as a 401 on its next request, which sends it to re-authorize. Process
   * local: another replica finds out on its own first call.
   */
  private readonly refused = new Map<string, number>();

  constructor(private readonly keys: KeySet, private readonly o: { issuer: string; audience: string }) {}

  async verify(token: string): Promise<McpCaller> {
    if (this.refused.has(digest(token))) throw new TokenRefused('the access token is no longer accepted (its grant was revoked); authorize again');
    let claims: Record<string, unknown>;
    try {
      ({ payload: claims } = await jwtVerify(token, this.keys.getKey, {
        issuer: this.o.issuer, audience: this.o.audience, algorithms: ['RS256'], requiredClaims: ['sub', 'exp', 'iat'],
      }));
    } catch (err) {
      throw new TokenRefused(refusalOf(err));
    }
    if (claims.kind !== 'mcp') throw new TokenRefused('this token is not an access token of this tool server');
    const act = claims.act as { sub?: unknown } | undefined;
    if (typeof act?.sub !== 'string' || typeof claims.scope !== 'string') throw new TokenRefused('the access token lacks its person or scope');
    const scopes = claims.scope.split(' ').filter(Boolean);
    return {
      token, recordId: String(claims.sub), person: act.sub, clientId: typeof claims.client_id === 'string' ? claims.client_id : null,
      scopes, canWrite: scopes.includes('catalogs:write'), expiresAt: Number(claims.exp),
    };
  }

  /** Remembers that the control plane refused this token: its next request here is a 401. */
  refuse(caller: McpCaller): void {
    const now = Date.now() / 1000;
    for (const [k, exp] of this.refused) if (exp < now) this.refused.delete(k);
    this.refused.set(digest(caller.token), caller.expiresAt);
  }
}

function refusalOf(err: unknown): string {
  if (err instanceof joseErrors.JWTExpired) return 'the access token has expired; refresh it or authorize again';
  if (err instanceof joseErrors.JWTClaimValidationFailed && err.claim === 'aud') return 'the access token was issued for another resource, not this tool server';
  if (err instanceof joseErrors.JWTClaimValidationFailed) return `the access token's ${err.claim} claim is not accepted here`;
  return 'the access token is not valid';
}

const digest = (s: string) => createHash('sha256').update(s).digest('hex');
