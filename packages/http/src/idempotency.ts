import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import { HttpError } from './errors';
import type { SqlClient } from './sql';

// The spec: a replay of an `Idempotency-Key` returns the original response; the
// same key on a different endpoint is 409 `idempotency_key_reused`. Keys are
// scoped to the calling principal. Only successful answers are kept, so a
// request that failed (a 502 `storage_error`, say) is safe to retry with the
// same key.
//
// Raw SQL over the process's pg pool: packages/http serves every deployable
// and takes only a pool, and the claim's expiry and takeover are the
// database's clock (a claim is an INSERT … ON CONFLICT DO NOTHING).

const MAX_KEY_LENGTH = 255;
/** An in-progress claim older than this belongs to a process that died. */
const ABANDONED_AFTER_SECONDS = 300;

export type BeginResult =
  | { kind: 'new' }
  | { kind: 'replay'; status: number; body: unknown }
  | { kind: 'reused'; reason: 'endpoint' | 'request' }
  | { kind: 'in_progress' };

export class IdempotencyStore {
  constructor(private readonly db: SqlClient, private readonly ttlSeconds = 24 * 3600) {}

  async begin(principalId: string, key: string, endpoint: string, requestHash: string): Promise<BeginResult> {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE principal_id = $1 AND key = $2
         AND (expires_at < now() OR (state = 'in_progress' AND created_at < now() - make_interval(secs => $3)))`,
      [principalId, key, ABANDONED_AFTER_SECONDS],
    );
    const inserted = await this.db.query(
      `INSERT INTO idempotency_keys (principal_id, key, endpoint, request_hash, state, expires_at)
       VALUES ($1, $2, $3, $4, 'in_progress', now() + make_interval(secs => $5))
       ON CONFLICT DO NOTHING RETURNING 1`,
      [principalId, key, endpoint, requestHash, this.ttlSeconds],
    );
    if (inserted.rowCount) return { kind: 'new' };
    const { rows } = await this.db.query<{ endpoint: string; request_hash: string; state: string; status_code: number | null; response_body: unknown }>(
      `SELECT endpoint, request_hash, state, status_code, response_body FROM idempotency_keys WHERE principal_id = $1 AND key = $2`,
      [principalId, key],
    );
    const row = rows[0];
    if (!row) return this.begin(principalId, key, endpoint, requestHash); // expired between the two statements
    if (row.endpoint !== endpoint) return { kind: 'reused', reason: 'endpoint' };
    if (row.request_hash !== requestHash) return { kind: 'reused', reason: 'request' };
    if (row.state !== 'done') return { kind: 'in_progress' };
    return { kind: 'replay', status: row.status_code ?? 200, body: row.response_body };
  }

  async complete(principalId: string, key: string, status: number, body: unknown): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_keys SET state = 'done', status_code = $3, response_body = $4 WHERE principal_id = $1 AND key = $2`,
      [principalId, key, status, JSON.stringify(body ?? null)],
    );
  }

  async release(principalId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_keys WHERE principal_id = $1 AND key = $2 AND state = 'in_progress'`, [principalId, key]);
  }
}

export function requestHash(method: string, body: unknown): string {
  return createHash('sha256').update(method).update('\0').update(JSON.stringify(body ?? null)).digest('hex');
}

/**
 * Middleware for an idempotent create. `endpoint` names the route (e.g.
 * "POST /v1/projects"); it must run after authentication.
 */
export function idempotent(store: IdempotencyStore, endpoint: string): RequestHandler {
  return async (req, res, next) => {
    const key = req.get('idempotency-key');
    if (key === undefined) return next();
    if (key.length === 0 || key.length > MAX_KEY_LENGTH) {
      throw new HttpError(400, 'invalid_value', `Idempotency-Key must be 1-${MAX_KEY_LENGTH} characters`, { field: 'Idempotency-Key' });
    }
    const principalId = req.caller?.principalId ?? 'anonymous';
    const begun = await store.begin(principalId, key, endpoint, requestHash(req.method, req.body));
    switch (begun.kind) {
      case 'replay':
        res.set('Idempotent-Replayed', 'true').status(begun.status).json(begun.body);
        return;
      case 'reused':
        throw new HttpError(409, 'idempotency_key_reused', begun.reason === 'endpoint'
          ? 'this Idempotency-Key was already used on a different endpoint'
          : 'this Idempotency-Key was already used with a different request body');
      case 'in_progress':
        throw new HttpError(409, 'creation_in_progress', 'a request with this Idempotency-Key is still running; retry shortly',
          { retry_after_seconds: 5 }, { 'Retry-After': '5' });
    }
    let settled = false;
    const send = res.json.bind(res);
    res.json = (body: unknown) => {
      settled = true;
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const persist = ok ? store.complete(principalId, key, res.statusCode, body) : store.release(principalId, key);
      persist.then(() => send(body), (err) => next(err));
      return res;
    };
    res.on('close', () => {
      if (!settled) void store.release(principalId, key).catch(() => undefined);
    });
    next();
  };
}
