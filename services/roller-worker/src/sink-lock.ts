import type pg from 'pg';

// One roll per sink at a time, across every roller: a Postgres advisory lock
// on `roll:<sink_id>`, taken without waiting (a roller that finds it held
// answers `busy`; the sink's next tick queues it again).

/** Runs `fn` holding the sink's roll lock; `busy` if another roller holds it. */
export async function withSinkLock<T>(db: pg.Pool, sinkId: string, busy: T, fn: () => Promise<T>): Promise<T> {
  // Raw: a session advisory lock lives on one connection, held for the whole roll (the Prisma client lends one per query).
  const conn = await db.connect();
  try {
    const { rows } = await conn.query<{ ok: boolean }>(`SELECT pg_try_advisory_lock(hashtext($1)) AS ok`, [`roll:${sinkId}`]);
    if (!rows[0].ok) return busy;
    try {
      return await fn();
    } finally {
      await conn.query(`SELECT pg_advisory_unlock(hashtext($1))`, [`roll:${sinkId}`]);
    }
  } finally {
    conn.release();
  }
}
