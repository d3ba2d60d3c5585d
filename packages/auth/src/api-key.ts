import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

// API keys are `al_live_<key_id>_<secret>`. The key id is the lookup handle
// and carries no underscore; the secret is 256 random bits. Only SHA-256 of
// the secret is stored: a fast hash is right for a high-entropy secret and
// keeps authentication cheap on every request.

export const API_KEY_PREFIX = 'al_live_';
const KEY_ID = /^[a-z2-7]{16}$/;
const SECRET = /^[A-Za-z0-9]{43}$/;

export interface NewApiKey {
  keyId: string;
  secret: string;
  /** The whole key as shown once to its owner. */
  token: string;
  secretHash: string;
}

export function generateApiKey(): NewApiKey {
  const keyId = base32(randomBytes(10));
  const secret = base62(randomBytes(32), 43);
  return { keyId, secret, token: `${API_KEY_PREFIX}${keyId}_${secret}`, secretHash: hashSecret(secret) };
}

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX);
}

/** Splits a presented key; null when it is not of the API key form at all. */
export function parseApiKey(token: string): { keyId: string; secret: string } | null {
  if (!token.startsWith(API_KEY_PREFIX)) return null;
  const rest = token.slice(API_KEY_PREFIX.length);
  const sep = rest.indexOf('_');
  if (sep < 0) return null;
  const keyId = rest.slice(0, sep);
  const secret = rest.slice(sep + 1);
  if (!KEY_ID.test(keyId) || !SECRET.test(secret)) return null;
  return { keyId, secret };
}

export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

export function secretMatches(secret: string, storedHash: string): boolean {
  const a = Buffer.from(hashSecret(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

const B32 = 'abcdefghijklmnopqrstuvwxyz234567';
function base32(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

const B62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function base62(bytes: Buffer, length: number): string {
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (out.length < length) {
    out = B62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out;
}
