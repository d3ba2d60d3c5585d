import type pg from 'pg';

// The lock of one quota scope (an organisation, or an owner's projects
// outside any): what changes which buckets are frozen or carry which hard
// quota — the metering worker's enforcement pass, publishing and
// unpublishing a catalog — runs under it, so a pass never freezes a table
// bucket a publication has just moved to the public tier, nor leaves one an
// unpublication brought back writable inside a frozen catalog. A subpath
// export: importing it does not load the Prisma client.

export interface QuotaScopeRef {
  orgId: string | null;
  ownerId: string;
}

const lockKey = (s: QuotaScopeRef): string => `quota-scope:${s.orgId ?? `owner:${s.ownerId}`}`;

/** Runs `fn` holding the scope's lock, waiting for it. */
export async function withQuotaScopeLock<T>(pool: pg.Pool, scope: QuotaScopeRef, fn: () => Promise<T>): Promise<T> {
  // Raw: a session advisory lock lives on one connection, held across the storage calls (the Prisma client lends one per query).
  const conn = await pool.connect();
  try {
    await conn.query('SELECT pg_advisory_lock(hashtext($1))', [lockKey(scope)]);
    try {
      return await fn();
    } finally {
      await conn.query('SELECT pg_advisory_unlock(hashtext($1))', [lockKey(scope)]);
    }
  } finally {
    conn.release();
  }
}
