import { CatalogFailure } from '@floe/catalog-client';
import { COMMIT_GATE_HEADER } from '@floe/db/commit-gate';
import type { RunContext } from './kind';
import type { TableRef } from '@floe/catalog-client';

// How a run's commit gets its turn on a table that writers keep committing
// to. The first attempt goes as any writer's does. A 409 means a writer got
// in first: the run then takes the table's commit gate (packages/db
// commit-gate.ts) and makes its next attempts holding it, so new commits to
// the table wait at the gate for the moment an attempt takes and only those
// already past it can still get in first. Each attempt reads the head again
// and builds on it; a writer is made to wait, never refused or lost.

/** Attempts in all, the first ungated: past the gate only commits already in flight can win, so a few suffice. */
export const MAX_COMMIT_ATTEMPTS = 10;

/** The headers of an attempt: a gated one says it holds the gate, so the catalog does not make it wait for itself. */
export type AttemptHeaders = Record<string, string>;

/** A 409 from the catalog: a writer committed first. */
export const lostRace = (err: unknown): err is CatalogFailure => err instanceof CatalogFailure && err.status === 409;

/**
 * `attempt(n, headers)` builds on the table's head (reading it again when
 * `n` > 1) and commits with `headers`; a 409 it throws is a lost race and the
 * next attempt follows. Resolves with the attempt that landed and how many
 * there were; after MAX_COMMIT_ATTEMPTS losses the last 409 is thrown.
 */
export async function commitInTurn<T>(ctx: Pick<RunContext, 'holdGate'>, ref: TableRef, attempt: (n: number, headers: AttemptHeaders) => Promise<T>): Promise<{ value: T; attempts: number }> {
  try {
    return { value: await attempt(1, {}), attempts: 1 };
  } catch (err) {
    if (!lostRace(err)) throw err;
  }
  return ctx.holdGate(ref, async () => {
    for (let n = 2; ; n++) {
      try {
        return { value: await attempt(n, { [COMMIT_GATE_HEADER]: 'held' }), attempts: n };
      } catch (err) {
        if (!lostRace(err) || n >= MAX_COMMIT_ATTEMPTS) throw err;
      }
    }
  });
}
