import type { Pool, PoolClient } from 'pg';

// A statement whose answer never arrived may still have taken effect: the
// database can commit and then lose the connection before saying so. For a
// commit's pointer swap that matters — the metadata file the pointer may now
// name must not be deleted — so failures are told apart here.

/** The swap's effect is unknown: it may or may not have been committed. */
export class OutcomeUnknown extends Error {
  constructor(override readonly cause: unknown) {
    super(`the database did not confirm the commit: ${(cause as Error)?.message ?? String(cause)}`);
    this.name = 'OutcomeUnknown';
  }
}

// SQLSTATE classes that describe the connection or the server, not the
// statement: 08 connection exception, 53 insufficient resources, 57 operator
// intervention (a terminated backend), 58 system error, XX internal error.
const CONNECTION_CLASSES = new Set(['08', '53', '57', '58', 'XX']);
const QUERY_CANCELED = '57014';

/** True when the server answered that the statement failed, so it changed nothing. */
export function certainlyFailed(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code !== 'string' || !/^[0-9A-Z]{5}$/.test(code)) return false;
  return code === QUERY_CANCELED || !CONNECTION_CLASSES.has(code.slice(0, 2));
}

/** One statement in autocommit whose failure, unless certain, is an unknown outcome. */
export async function confirmed<T>(statement: () => Promise<T>): Promise<T> {
  try {
    return await statement();
  } catch (err) {
    throw certainlyFailed(err) ? err : new OutcomeUnknown(err);
  }
}

/**
 * A transaction whose work fails cleanly (rolled back, or never committed
 * because the connection died before COMMIT was sent), and whose COMMIT,
 * unless refused outright, is an unknown outcome when its answer is lost.
 */
export async function transactionWithKnownOutcome<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: unknown = null;
  try {
    await client.query('BEGIN');
    let result: T;
    try {
      result = await work(client);
    } catch (err) {
      await client.query('ROLLBACK').catch((e) => { broken = e; });
      throw err;
    }
    try {
      await client.query('COMMIT');
    } catch (err) {
      if (certainlyFailed(err)) throw err;
      broken = err;
      throw new OutcomeUnknown(err);
    }
    return result;
  } finally {
    // A client whose connection failed is destroyed, not returned to the pool.
    client.release(broken ? true : undefined);
  }
}
