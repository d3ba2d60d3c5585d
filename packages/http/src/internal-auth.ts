import { createHash, timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { unauthorized } from './errors';

/**
 * Internal routes answer only to the deployment's bootstrap secret, sent as a
 * bearer token. The public gateway never forwards /internal/*.
 */
export function requireBootstrapSecret(secret: string | undefined): RequestHandler {
  const expected = secret ? digest(secret) : null;
  return (req, _res, next) => {
    const header = req.get('authorization') ?? '';
    const presented = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!expected || !presented || !timingSafeEqual(digest(presented), expected)) {
      return next(unauthorized('internal routes need the deployment bootstrap secret'));
    }
    next();
  };
}

function digest(s: string): Buffer {
  return createHash('sha256').update(s).digest();
}
