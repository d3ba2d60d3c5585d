import type pg from 'pg';

// A Postgres session advisory lock held across work that is more than one
// transaction (storage calls, several Prisma queries): the lock lives on one
// connection of the pool for as long as `fn` runs, and dies with that
// connection if the process does. Waiting is by polling pg_try_advisory_lock
// with the connection handed back between tries, so many waiters never hold
// the connections the holder's own queries need from the same pool. A subpath
// export: importing it does not load the Prisma client.

export class SessionLockTimeout extends Error {
  constructor(readonly key: string, readonly waitedMs: number) {
    super(`the lock ${key} was not free within ${waitedMs} ms`);
    this.name = 'SessionLockTimeout';
  }
}

export interface SessionLockOptions {
  /** How long to wait for the lock before giving up (SessionLockTimeout). */
  waitMs?: number;
  pollMs?: number;
}

/** Runs `fn` holding the lock named `key`, waiting for it up to `waitMs`. */
export async function withSessionLock<T>(pool: pg.Pool, key: string, fn: () => Promise<T>, opts: SessionLockOptions = {}): Promise<T> {
  const waitMs = opts.waitMs ?? 60_000;
  const pollMs = opts.pollMs ?? 50;
  const started = Date.now();
  for (;;) {
    const conn = await pool.connect();
    let held = false;
    try {
      // Raw: Prisma has no advisory locks, and a session lock must stay on this one connection.
      held = (await conn.query<{ ok: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok', [key])).rows[0].ok;
      if (held) {
        try {
          return await fn();
        } finally {
          await conn.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [key]);
        }
      }
    } finally {
      conn.release();
    }
    if (Date.now() - started >= waitMs) throw new SessionLockTimeout(key, Date.now() - started);
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
