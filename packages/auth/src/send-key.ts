import { randomBytes } from 'node:crypto';
import { hashSecret } from './api-key';

// Sink send keys: `fsk_<key_id>_<secret>`. The key id finds the sink, only
// SHA-256 of the secret is stored, the whole key is shown once. The prefix
// lets every surface recognise one and refuse it without a lookup.

export const SEND_KEY_PREFIX = 'fsk_';
const KEY_ID = /^[0-9a-f]{16}$/;
const SECRET = /^[A-Za-z0-9_-]{43}$/;

export interface NewSendKey {
  keyId: string;
  token: string;
  secretHash: string;
}

export function generateSendKey(): NewSendKey {
  const keyId = randomBytes(8).toString('hex');
  const secret = randomBytes(32).toString('base64url');
  return { keyId, token: `${SEND_KEY_PREFIX}${keyId}_${secret}`, secretHash: hashSecret(secret) };
}

export function looksLikeSendKey(token: string): boolean {
  return token.startsWith(SEND_KEY_PREFIX);
}

export function parseSendKey(token: string): { keyId: string; secret: string } | null {
  if (!looksLikeSendKey(token)) return null;
  const rest = token.slice(SEND_KEY_PREFIX.length);
  const keyId = rest.slice(0, 16);
  const secret = rest.slice(17);
  if (rest[16] !== '_' || !KEY_ID.test(keyId) || !SECRET.test(secret)) return null;
  return { keyId, secret };
}
