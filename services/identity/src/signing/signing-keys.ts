import { calculateJwkThumbprint, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { SqlClient } from '@floe/http';
import { CurrentSigner, loadPublishedKeys, newestSigningKey, type Signer } from '@floe/auth';
import type { PrismaClient } from '@floe/db';
import type { Keyring } from '@floe/db/sealed';
import { insertSigningKey, retireAllBut, underSigningKeyLock } from '../store/signing-keys';

// RS256 signing keys live in Postgres so every identity replica signs with the
// same key and every verifier can read the public halves. The newest key that
// is not retired signs. Rotation retires the old key from signing but keeps it
// published for the overlap (longest token life plus slack), so tokens it
// signed keep verifying: two keys are published during that window. The
// private half is sealed with the deployment's data key before it is stored:
// the database alone cannot sign a token. The current key is read through
// packages/auth's CurrentSigner, as every other minter reads it.

/** The clients the keys are read and written through: Prisma, and the pg pool the verifiers' published-keys query runs over. */
export interface SigningKeyDb {
  prisma: PrismaClient;
  db: SqlClient;
}

export class SigningKeys {
  private readonly signer: CurrentSigner;

  constructor(
    private readonly d: SigningKeyDb,
    private readonly keyring: Keyring,
    private readonly overlapSeconds: number,
    signerCacheMs = 30_000,
  ) {
    this.signer = new CurrentSigner(d.prisma, keyring, signerCacheMs);
  }

  /** Generates the first key when none signs yet (first start of a deployment; replicas starting together make one). */
  async ensure(): Promise<string> {
    const current = await newestSigningKey(this.d.prisma);
    if (current) return current.kid;
    const made = await newKey(this.keyring);
    return underSigningKeyLock(this.d.prisma, async (tx) => {
      const raced = await newestSigningKey(tx);
      if (raced) return raced.kid;
      await insertSigningKey(tx, made);
      return made.kid;
    });
  }

  /** A new key signs from now on; the previous ones stay published for the overlap. */
  async rotate(): Promise<{ kid: string; retired: string[]; publishedUntil: string }> {
    const made = await newKey(this.keyring);
    const rows = await underSigningKeyLock(this.d.prisma, async (tx) => {
      await insertSigningKey(tx, made);
      return retireAllBut(tx, made.kid, this.overlapSeconds);
    });
    this.signer.forget();
    const until = rows[0]?.publish_until ?? new Date();
    return { kid: made.kid, retired: rows.map((r) => r.kid), publishedUntil: new Date(until).toISOString() };
  }

  currentSigner(): Promise<Signer> {
    return this.signer.get();
  }

  async jwks(): Promise<{ keys: JWK[] }> {
    return { keys: await loadPublishedKeys(this.d.db) };
  }
}

/** A fresh RS256 pair: the public JWK and the private one sealed, both named by the key's thumbprint. */
async function newKey(keyring: Keyring): Promise<{ kid: string; publicJwk: JWK; privateJwk: string }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256', { modulusLength: 2048, extractable: true });
  const pub = await exportJWK(publicKey);
  const kid = await calculateJwkThumbprint(pub);
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };
  return { kid, publicJwk: { ...pub, kid, alg: 'RS256', use: 'sig' }, privateJwk: keyring.seal(JSON.stringify(privateJwk)) };
}
