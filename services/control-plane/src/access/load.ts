import type { RequestHandler } from 'express';
import { callerAccess, requireSignedInRecently, type AccessContext } from '@floe/accounts';
import type { Db } from '@floe/db';
import type { SqlClient } from '@floe/http';

// The control plane's request heads over the access rules of packages/accounts.

declare global {
  namespace Express {
    interface Request {
      access?: AccessContext;
    }
  }
}

/**
 * Runs after packages/auth's requireCaller(); sets req.access. `sql` is the
 * pool the Prisma client runs over. `readsOnly`: a route that reads whatever
 * its method (POST /v1/query sends its statement in a body), so a token
 * consented for reading may call it.
 */
export function loadAccess(db: Db, sql: SqlClient, readsOnly = false): RequestHandler {
  return async (req, _res, next) => {
    req.access = await callerAccess(db, sql, req.caller!, readsOnly ? 'GET' : req.method);
    next();
  };
}

/**
 * Authentication 7: a sensitive change (rotate, sinks and their device
 * tokens) made from a login session that signed in over 10 minutes ago is
 * 401 `reauth_required` (packages/accounts requireSignedInRecently).
 */
export function requireRecentSignIn(db: Db): RequestHandler {
  return async (req, _res, next) => {
    await requireSignedInRecently(db, req.caller?.sessionId ?? null);
    next();
  };
}
