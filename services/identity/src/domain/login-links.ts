import { randomBytes } from 'node:crypto';
import { hashSecret } from '@floe/auth';
import type { Prisma } from '@floe/db';
import { HttpError } from '@floe/http';
import { lockLoginToken, type LinkPurpose, type LoginTokenRecord } from '../store/login-tokens';

// The links mailed for a first password (`/app/welcome?token=…`, 3 days) and
// for a reset (`/app/reset?token=…`, 30 minutes). The token is shown only in
// the mail; its SHA-256 is stored, and a link is spent by its use.

export const WELCOME_SECONDS = 3 * 86_400;
export const RESET_SECONDS = 30 * 60;

/** A link token's stored form (the one SHA-256 of a shown-once secret, packages/auth). */
export const linkTokenHash = hashSecret;

export function newLinkToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: linkTokenHash(token) };
}

export const linkUrl = (baseUrl: string, page: 'welcome' | 'reset', token: string): string => `${baseUrl}/app/${page}?token=${encodeURIComponent(token)}`;

/** The link a token names, locked for this transaction: 401 `invalid_login_token` (unknown, spent, another purpose), 410 `token_expired`. */
export async function usableLink(tx: Prisma.TransactionClient, token: string, purposes: LinkPurpose[]): Promise<LoginTokenRecord> {
  const link = await lockLoginToken(tx, linkTokenHash(token));
  if (!link || link.usedAt || !purposes.includes(link.purpose)) throw new HttpError(401, 'invalid_login_token', 'this link is not valid (or was already used); ask for a new one');
  if (link.expiresAt.getTime() <= Date.now()) throw new HttpError(410, 'token_expired', 'this link has expired; ask for a new one');
  return link;
}
