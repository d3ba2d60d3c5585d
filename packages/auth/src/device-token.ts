import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-key';

// Device tokens: the path segment of `{ingest_url}/d/<token>`. The URL is the
// credential, so the token is 256 random bits and only its SHA-256 is kept
// (unique on the sink row: the lookup is the hash itself, no key id needed).

export const DEVICE_TOKEN_PREFIX = 'fdt_';
const DEVICE_TOKEN = /^fdt_[A-Za-z0-9_-]{43}$/;

export function generateDeviceToken(): { token: string; hash: string } {
  const token = `${DEVICE_TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`;
  return { token, hash: deviceTokenHash(token)! };
}

/** The stored form of a token; null for a string that cannot be one (answered like an unknown token). */
export function deviceTokenHash(token: string): string | null {
  if (!DEVICE_TOKEN.test(token)) return null;
  return hashSecret(token);
}
