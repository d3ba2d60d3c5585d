import type pg from 'pg';
import { withSessionLock } from './session-lock';

// A table's commit gate: how a maintenance run's replace or expiry gets its
// turn on a table that writers commit to back to back. Every commit is a
// compare-and-set on the table's pointer, so a run that must rebuild its
// snapshot on each new head (reload, read what the head added, upload a
// manifest list, commit: a few hundred milliseconds) can lose every race to
// a writer committing several times a second. After it has lost once, the
// run holds the gate — a Postgres session advisory lock named for the table
// — around its next attempts, and the catalog makes each other commit to that
// table wait at the gate (never more than GATE_WAIT_MS) before it reads the
// table: commits already past the gate may still land first, no new one can,
// so the run's next attempt lands. Writers wait a moment and are never
// refused for it.
//
// The gate only orders; it guards nothing. Correctness stays with the
// pointer's compare-and-set: a commit that skips the gate (the run's own,
// which names the header below, or anyone's after GATE_WAIT_MS) is checked
// as every commit is. A subpath export: importing it does not load the
// Prisma client.

/** The header a gate holder's own commits carry, so the catalog does not make them wait for themselves. */
export const COMMIT_GATE_HEADER = 'X-Floe-Commit-Gate';

/** The longest a commit waits at a held gate before going on regardless (a holder that hangs never stalls a table). */
export const GATE_WAIT_MS = 3_000;

const POLL_MS = 10;

export interface TableIdentity {
  warehouseId: string;
  namespace: string[];
  name: string;
}

export const commitGateKey = (t: TableIdentity) => `commit-gate:${t.warehouseId}:${JSON.stringify([t.namespace, t.name])}`;

/** The maintenance run's side: `fn` runs holding the table's gate (waiting up to `waitMs` for another holder). */
export function holdCommitGate<T>(pool: pg.Pool, t: TableIdentity, fn: () => Promise<T>, waitMs = 10_000): Promise<T> {
  return withSessionLock(pool, commitGateKey(t), fn, { waitMs, pollMs: POLL_MS });
}

/**
 * One look at a gate, as an SQL expression over the gate's key (a parameter):
 * true when nobody holds it (the shared lock taken and let go at once). The
 * catalog folds its first look into its read of the table (one round trip).
 */
export const gateFreeSql = (keyParam: string) =>
  `CASE WHEN pg_try_advisory_lock_shared(hashtextextended(${keyParam}, 0)) THEN pg_advisory_unlock_shared(hashtextextended(${keyParam}, 0)) ELSE false END`;

/**
 * The catalog's side: resolves once nobody holds the table's gate, or after
 * GATE_WAIT_MS. One statement per look, so a waiting commit never keeps a
 * connection of the pool.
 */
export async function passCommitGate(pool: Pick<pg.Pool, 'query'>, t: TableIdentity, maxWaitMs = GATE_WAIT_MS): Promise<void> {
  const key = commitGateKey(t);
  const until = Date.now() + maxWaitMs;
  for (;;) {
    const { rows } = await pool.query<{ free: boolean }>(`SELECT ${gateFreeSql('$1')} AS free`, [key]);
    if (rows[0].free || Date.now() >= until) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
