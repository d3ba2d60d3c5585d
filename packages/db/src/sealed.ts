// Secrets Floe must use again — the warehouses' storage secret keys, the JWT
// private keys — are sealed with the deployment's data key before they reach
// the database, so a copy of the database alone reveals none of them. The one
// home of sealing and opening: every reader and writer of those columns comes
// through here.
//
// A sealed value is one string in the value's own column:
//   v1:<key id>:<iv, 12 bytes>:<AES-256-GCM ciphertext + 16-byte tag>   (base64url)
// The key id says which data key opens it, so keys rotate: the first key of
// FLOE_DATA_KEYS seals, every listed key opens, and `npm run secrets:reseal`
// moves old values to the current key. The version and key id are the
// cipher's additional data: a value relabelled with another key id fails.
import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from 'node:crypto';
import type { DataKey } from '@floe/config';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const SEALED = /^v1:([A-Za-z0-9_-]{1,32}):([A-Za-z0-9_-]{16}):([A-Za-z0-9_-]{22,})$/;

export type SealedValueProblem = 'not_sealed' | 'unknown_key' | 'tampered';

/** A stored value that cannot be opened. The message never carries the value. */
export class SealedValueError extends Error {
  constructor(readonly reason: SealedValueProblem, message: string) {
    super(message);
    this.name = 'SealedValueError';
  }
}

/** Whether a stored value is in the sealed form (anything else is plaintext, or empty). */
export function isSealed(value: string): boolean {
  return SEALED.test(value);
}

/** The id of the key that sealed a value; null for plaintext. */
export function sealedKeyId(value: string): string | null {
  return SEALED.exec(value)?.[1] ?? null;
}

export class Keyring {
  /** Key objects made once: sealing and opening run on hot paths (the ingest gateway opens one per request). */
  private readonly keys = new Map<string, KeyObject>();
  readonly currentKeyId: string;

  constructor(dataKeys: readonly DataKey[]) {
    if (!dataKeys.length) throw new Error('FLOE_DATA_KEYS is unset: stored secrets cannot be sealed or opened without the deployment\'s data key');
    for (const { id, key } of dataKeys) {
      if (key.length !== 32) throw new Error(`data key ${id} must be 32 bytes`);
      if (this.keys.has(id)) throw new Error(`data key ${id} is listed twice`);
      this.keys.set(id, createSecretKey(key));
    }
    this.currentKeyId = dataKeys[0].id;
  }

  knows(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /** Whether a sealed value is sealed under the current key (nothing to reseal). */
  isCurrent(sealed: string): boolean {
    return sealedKeyId(sealed) === this.currentKeyId;
  }

  seal(plaintext: string): string {
    const id = this.currentKeyId;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(id)!, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(`${VERSION}:${id}`));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}:${id}:${iv.toString('base64url')}:${body.toString('base64url')}`;
  }

  open(sealed: string): string {
    const m = SEALED.exec(sealed);
    if (!m) {
      throw new SealedValueError('not_sealed', 'a stored secret is not sealed (plaintext left by an older version?); run `npm run db:migrate` to seal it');
    }
    const [, id, iv, encoded] = m;
    const key = this.keys.get(id);
    if (!key) throw new SealedValueError('unknown_key', `a stored secret is sealed under data key ${id}, which FLOE_DATA_KEYS does not list`);
    const body = Buffer.from(encoded, 'base64url');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: TAG_BYTES });
      decipher.setAAD(Buffer.from(`${VERSION}:${id}`));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SealedValueError('tampered', `a stored secret sealed under data key ${id} does not open: it was changed, or the key is not the one that sealed it`);
    }
  }
}
