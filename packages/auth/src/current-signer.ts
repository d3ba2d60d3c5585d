import { importJWK, type CryptoKey, type JWK } from 'jose';
import type { Db } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';

// The key that signs now: the newest signing key that is not retired, its
// private half opened with the deployment's data key. Identity makes and
// rotates the keys (services/identity signing-keys.ts); every deployable that
// mints a token reads the current one here — identity its control-plane and
// session tokens, packages/catalogs the catalog tokens the catalog's token
// route and Floe's own workers use. The database alone cannot sign: the
// private half is sealed.

export interface Signer {
  kid: string;
  key: CryptoKey | Uint8Array;
}

/** The newest signing key that is not retired: the one that signs (its private half still sealed); null before identity made one. */
export function newestSigningKey(db: Db): Promise<{ kid: string; privateJwk: string } | null> {
  return db.signingKey.findFirst({ where: { retiredAt: null }, orderBy: { createdAt: 'desc' }, select: { kid: true, privateJwk: true } });
}

export class CurrentSigner {
  private cached: { value: Signer; at: number } | null = null;

  constructor(
    private readonly prisma: Db,
    private readonly keyring: Keyring,
    /** How long a read key is reused: a rotation reaches every signer within it. */
    private readonly cacheMs = 30_000,
  ) {}

  async get(): Promise<Signer> {
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.value;
    const row = await newestSigningKey(this.prisma);
    if (!row) throw new Error('no signing key: identity did not finish start-up');
    const jwk = JSON.parse(this.keyring.open(row.privateJwk)) as JWK;
    const value = { kid: row.kid, key: await importJWK(jwk, 'RS256') };
    this.cached = { value, at: Date.now() };
    return value;
  }

  /** The next `get` reads the key again (this process just rotated it). */
  forget(): void {
    this.cached = null;
  }
}
