// Where a presented refresh token stands in its chain: the one home of the
// rule that login sessions (sessions.ts) and OAuth refresh families
// (oauth-token.ts) both keep. A chain is the current token, the one its last
// rotation replaced (with when), and every older one (retired_refresh_hashes).
// - the current one refreshes;
// - the one the last rotation replaced, within RACE_SECONDS of it, lost a race
//   with its own twin: told so, the owner lives on;
// - any other token of the chain, at any age, was kept by someone after it was
//   rotated out: the theft signal, the owner is revoked;
// - anything else is not of this chain: refused without side effects.

/** How long after a rotation the token it replaced counts as racing rather than reused. */
export const RACE_SECONDS = 5;

export type ChainPlace = 'current' | 'raced' | 'reused';

export interface Chain {
  refreshHash: string;
  previousRefreshHash: string | null;
  rotatedAt: Date | null;
}

/**
 * The place of `presented` (a secret's hash) in `chain`, or null when it is
 * not of it. `retired` answers whether the hash is one of the chain's older
 * tokens; it is asked only when the row itself does not name the hash.
 */
export async function placeInChain(chain: Chain, presented: string, retired: () => Promise<boolean>, now = Date.now()): Promise<ChainPlace | null> {
  if (chain.refreshHash === presented) return 'current';
  if (chain.previousRefreshHash === presented) {
    const since = chain.rotatedAt ? (now - chain.rotatedAt.getTime()) / 1000 : Infinity;
    return since <= RACE_SECONDS ? 'raced' : 'reused';
  }
  return (await retired()) ? 'reused' : null;
}
