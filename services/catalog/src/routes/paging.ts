import type { Request } from 'express';
import { badRequest } from '../errors';

// pageSize / pageToken of the list routes: a token is the last name of the
// previous page; an absent pageSize means up to MAX_PAGE results.
export const MAX_PAGE = 1000;

export function pageParams(req: Request): { after: string | null; pageSize: number } {
  const pageSize = req.query.pageSize === undefined ? MAX_PAGE : Number(req.query.pageSize);
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > MAX_PAGE) throw badRequest(`pageSize must be 1-${MAX_PAGE}`);
  const token = req.query.pageToken;
  const after = typeof token === 'string' && token ? Buffer.from(token, 'base64url').toString() : null;
  return { after, pageSize };
}

/** `found` was fetched with pageSize + 1 rows: the extra one says whether another page exists. */
export function pageOf<T>(found: T[], pageSize: number, nameOf: (item: T) => string): { page: T[]; next: string | undefined } {
  const page = found.slice(0, pageSize);
  const next = found.length > pageSize ? Buffer.from(nameOf(page[page.length - 1])).toString('base64url') : undefined;
  return { page, next };
}
