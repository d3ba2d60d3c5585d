import { createLocalJWKSet, type JSONWebKeySet, type JWK, type JWTVerifyGetKey } from 'jose';
import type { SqlClient } from '@floe/http';

// The public half of every published signing key, read from the table the
// identity service writes. Reloaded every minute, and when a token names a kid
// not seen yet (just after a rotation). Unknown-kid reloads are spaced at
// least UNKNOWN_KID_RELOAD_MIN_MS apart, waiting out the gap rather than
// refusing, so a token signed right after a rotation always verifies, while
// tokens with made-up kids cost at most a few queries a second.

const RELOAD_EVERY_MS = 60_000;
const UNKNOWN_KID_RELOAD_MIN_MS = 250;

export async function loadPublishedKeys(db: SqlClient): Promise<JWK[]> {
  // Raw over pg: every verifier (each deployable's authentication) reads it through the pool it has; the window is the database's clock.
  const { rows } = await db.query<{ public_jwk: JWK }>(
    `SELECT public_jwk FROM signing_keys WHERE retired_at IS NULL OR publish_until > now() ORDER BY created_at DESC`,
  );
  return rows.map((r) => r.public_jwk);
}

export class KeySet {
  private jwks: JSONWebKeySet = { keys: [] };
  private local: JWTVerifyGetKey = createLocalJWKSet(this.jwks);
  private loadedAt = 0;
  private inflight: Promise<void> | null = null;

  constructor(private readonly db: SqlClient) {}

  /** Reloads now; concurrent callers share one query. */
  reload(): Promise<void> {
    this.inflight ??= loadPublishedKeys(this.db)
      .then((keys) => {
        this.jwks = { keys };
        this.local = createLocalJWKSet(this.jwks);
        this.loadedAt = Date.now();
      })
      .finally(() => { this.inflight = null; });
    return this.inflight;
  }

  /** A jose key resolver for jwtVerify. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    if (Date.now() - this.loadedAt > RELOAD_EVERY_MS) await this.reload();
    if (!this.jwks.keys.some((k) => k.kid === header.kid)) {
      const wait = this.loadedAt + UNKNOWN_KID_RELOAD_MIN_MS - Date.now();
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      await this.reload();
    }
    return this.local(header, token);
  };
}
