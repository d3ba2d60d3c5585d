import type { Request } from 'express';
import { badRequest } from './errors';

// pageSize / pageToken of the list routes: a token is the last name of the
// previous page behind a marker, base64url-encoded; an absent pageSize means
// up to MAX_PAGE results. A token the catalog did not make is refused rather
// than read as a name, so a client's mistake is not an empty last page.
export const MAX_PAGE = 1000;
const TOKEN_MARKER = 'after:';

export function pageParams(req: Request): { after: string | null; pageSize: number } {
  const pageSize = req.query.pageSize === undefined ? MAX_PAGE : Number(req.query.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) throw badRequest(`pageSize must be 1-${MAX_PAGE}`);
  const token = req.query.pageToken;
  // The spec: an empty pageToken asks for the first page.
  if (token === undefined || token === '') return { after: null, pageSize };
  const after = typeof token === 'string' ? nameInToken(token) : null;
  if (after === null) throw badRequest('pageToken is not a token this catalog gave out; send the next-page-token of the previous page, or none');
  return { after, pageSize };
}

function nameInToken(token: string): string | null {
  if (!/^[A-Za-z0-9_-]+$/.test(token)) return null;
  const text = Buffer.from(token, 'base64url').toString('utf8');
  // Re-encoding catches bytes that were not UTF-8 and base64 that was not canonical.
  if (Buffer.from(text, 'utf8').toString('base64url') !== token || !text.startsWith(TOKEN_MARKER)) return null;
  return text.slice(TOKEN_MARKER.length);
}

function tokenFor(name: string): string {
  return Buffer.from(TOKEN_MARKER + name, 'utf8').toString('base64url');
}

/** `found` was fetched with pageSize + 1 rows: the extra one says whether another page exists. */
export function pageOf<T>(found: T[], pageSize: number, nameOf: (item: T) => string): { page: T[]; next: string | undefined } {
  const page = found.slice(0, pageSize);
  const next = found.length > pageSize ? tokenFor(nameOf(page[page.length - 1])) : undefined;
  return { page, next };
}
