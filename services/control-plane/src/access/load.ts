import type { RequestHandler } from 'express';
import { REAUTH_AFTER_SECONDS, callerAccess, sessionSignedInAt, type AccessContext } from '@floe/accounts';
import type { Db } from '@floe/db';
import { HttpError, type SqlClient } from '@floe/http';

// The control plane's request heads over the access rules of packages/accounts.

declare global {
  namespace Express {
    interface Request {
      access?: AccessContext;
    }
  }
}

/** Runs after packages/auth's requireCaller(); sets req.access. `sql` is the pool the Prisma client runs over. */
export function loadAccess(db: Db, sql: SqlClient): RequestHandler {
  return async (req, _res, next) => {
    req.access = await callerAccess(db, sql, req.caller!, req.method);
    next();
  };
}

/**
 * Authentication 7: a sensitive change (rotate, sinks and their device
 * tokens) made from a login session whose password was typed over 10 minutes
 * ago is 401 `reauth_required`. An API key, or a token exchanged for one, is
 * never asked.
 */
export function requireRecentSignIn(db: Db): RequestHandler {
  return async (req, _res, next) => {
    const sid = req.caller?.sessionId;
    if (sid) {
      const at = await sessionSignedInAt(db, sid);
      if (!at || Date.now() - at.getTime() > REAUTH_AFTER_SECONDS * 1000) {
        throw new HttpError(401, 'reauth_required', 'this change needs a recent sign-in: log in again (POST /v1/auth/login), then retry', { remedy: 'POST /v1/auth/login' });
      }
    }
    next();
  };
}
