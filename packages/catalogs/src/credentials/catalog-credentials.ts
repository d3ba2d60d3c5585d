import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { hashSecret } from '@floe/auth';
import type { Db } from '@floe/db';
import { currentCredential, insertCredentials } from './credential-records';

// Catalog credentials: `t-<uuid>` (read/write) and `t-<uuid>-ro` (read-only).
// The spec has the connection route hand the matching secret to anyone
// entitled, again and again, while only a hash is stored. So the secret is
// derived: HMAC-SHA256 over the client id and a per-issue nonce under the
// deployment's credential key. The database holds the nonce and the hash; a
// copy of the database without the key reveals nothing usable.

export interface CatalogCredentialPair {
  rw: { client_id: string; client_secret: string };
  ro: { client_id: string; client_secret: string };
}

export class CatalogSecrets {
  private readonly key: Buffer;

  constructor(credentialKey: string | undefined) {
    if (!credentialKey) throw new Error('FLOE_CREDENTIAL_KEY (or FLOE_BOOTSTRAP_SECRET) is required to issue catalog credentials');
    this.key = createHmac('sha256', 'floe catalog credentials').update(credentialKey).digest();
  }

  secretFor(clientId: string, nonce: string): string {
    return `cs_${createHmac('sha256', this.key).update(clientId).update('\0').update(nonce).digest('base64url')}`;
  }

  /** Writes a new read/write + read-only pair for a warehouse; `base` is the uuid part (a fresh one unless given). */
  async issuePair(db: Db, warehouseId: string, base: string = randomUUID()): Promise<CatalogCredentialPair> {
    const rwId = `t-${base}`;
    const roId = `t-${base}-ro`;
    const rwNonce = randomBytes(16).toString('hex');
    const roNonce = randomBytes(16).toString('hex');
    const rwSecret = this.secretFor(rwId, rwNonce);
    const roSecret = this.secretFor(roId, roNonce);
    await insertCredentials(db, warehouseId, [
      { clientId: rwId, access: 'write', secretHash: hashSecret(rwSecret), secretNonce: rwNonce },
      { clientId: roId, access: 'read', secretHash: hashSecret(roSecret), secretNonce: roNonce },
    ]);
    return { rw: { client_id: rwId, client_secret: rwSecret }, ro: { client_id: roId, client_secret: roSecret } };
  }

  /** The warehouse's current (unrevoked) credential of one access level with its secret; null when none can be derived. */
  async current(db: Db, warehouseId: string, access: 'read' | 'write'): Promise<{ client_id: string; client_secret: string } | null> {
    const r = await currentCredential(db, warehouseId, access);
    if (!r?.secretNonce) return null;
    return { client_id: r.clientId, client_secret: this.secretFor(r.clientId, r.secretNonce) };
  }
}
