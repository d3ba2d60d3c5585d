import { calculateJwkThumbprint, exportJWK, generateKeyPair, importJWK, type JWK, type CryptoKey } from 'jose';
import type { SqlClient } from '@floe/http';
import { loadPublishedKeys } from '@floe/auth';
import type { Keyring } from '@floe/db/sealed';

// RS256 signing keys live in Postgres so every identity replica signs with the
// same key and every verifier can read the public halves. The newest key that
// is not retired signs. Rotation retires the old key from signing but keeps it
// published for the overlap (longest token life plus slack), so tokens it
// signed keep verifying: two keys are published during that window. The
// private half is sealed with the deployment's data key before it is stored:
// the database alone cannot sign a token.

const LOCK_ID = 4_627_001; // pg advisory lock: one replica generates the first key

export interface Signer {
  kid: string;
  key: CryptoKey | Uint8Array;
}

export class SigningKeys {
  private signer: { value: Signer; at: number } | null = null;

  constructor(
    private readonly db: SqlClient,
    private readonly keyring: Keyring,
    private readonly overlapSeconds: number,
    private readonly signerCacheMs = 30_000,
  ) {}

  /** Generates the first key when none signs yet (first start of a deployment). */
  async ensure(): Promise<string> {
    await this.db.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      const { rows } = await this.db.query<{ kid: string }>(
        `SELECT kid FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
      );
      return rows[0]?.kid ?? (await this.insertNew());
    } finally {
      await this.db.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
    }
  }

  /** A new key signs from now on; the previous ones stay published for the overlap. */
  async rotate(): Promise<{ kid: string; retired: string[]; publishedUntil: string }> {
    await this.db.query('SELECT pg_advisory_lock($1)', [LOCK_ID]);
    try {
      const kid = await this.insertNew();
      const { rows } = await this.db.query<{ kid: string; publish_until: Date }>(
        `UPDATE signing_keys SET retired_at = now(), publish_until = now() + make_interval(secs => $2)
          WHERE retired_at IS NULL AND kid <> $1 RETURNING kid, publish_until`,
        [kid, this.overlapSeconds],
      );
      this.signer = null;
      const until = rows[0]?.publish_until ?? new Date();
      return { kid, retired: rows.map((r) => r.kid), publishedUntil: new Date(until).toISOString() };
    } finally {
      await this.db.query('SELECT pg_advisory_unlock($1)', [LOCK_ID]);
    }
  }

  async currentSigner(): Promise<Signer> {
    if (this.signer && Date.now() - this.signer.at < this.signerCacheMs) return this.signer.value;
    const { rows } = await this.db.query<{ kid: string; private_jwk: string }>(
      `SELECT kid, private_jwk FROM signing_keys WHERE retired_at IS NULL ORDER BY created_at DESC LIMIT 1`,
    );
    if (!rows[0]) throw new Error('no signing key: identity did not finish start-up');
    const jwk = JSON.parse(this.keyring.open(rows[0].private_jwk)) as JWK;
    const value = { kid: rows[0].kid, key: await importJWK(jwk, 'RS256') };
    this.signer = { value, at: Date.now() };
    return value;
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: await loadPublishedKeys(this.db) };
  }

  private async insertNew(): Promise<string> {
    const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
    const pub = await exportJWK(publicKey);
    const kid = await calculateJwkThumbprint(pub);
    const publicJwk = { ...pub, kid, alg: 'RS256', use: 'sig' };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
    await this.db.query(
      `INSERT INTO signing_keys (kid, alg, public_jwk, private_jwk) VALUES ($1, 'RS256', $2, $3)`,
      [kid, JSON.stringify(publicJwk), this.keyring.seal(JSON.stringify(privateJwk))],
    );
    return kid;
  }
}
