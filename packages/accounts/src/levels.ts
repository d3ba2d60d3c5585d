import type { PrincipalKind } from './principals';

// Authentication 5–6 and the Grant resource as one pure function: what level a
// principal holds on a warehouse, why (`my_via`), and whether it may see the
// warehouse at all. Everything that reports or checks a level calls this.

export type Level = 'read' | 'write' | 'none';
export type Via = 'admin' | 'grant' | 'creator' | 'agent' | 'membership';

export interface LevelFacts {
  principalId: string;
  kind: PrincipalKind;
  /** The principal's membership in the warehouse's organisation; null outside it (or for a warehouse outside any organisation). */
  membership: { role: 'admin' | 'member'; confined: boolean } | null;
  /** Whether the warehouse belongs to no organisation and the principal owns its project. */
  ownsProject: boolean;
  createdBy: string | null;
  /** The explicit grant row for this principal and warehouse, if any. */
  grant: { level: Level } | null;
}

export interface Access {
  level: Level;
  via: Via | null;
  /** False: the warehouse is answered as not found for this principal. */
  visible: boolean;
}

const RANK: Record<Level, number> = { none: 0, read: 1, write: 2 };

export function rank(level: Level): number {
  return RANK[level];
}

export function atLeast(held: Level, needed: Level): boolean {
  return RANK[held] >= RANK[needed];
}

export const isToken = (kind: PrincipalKind) => kind === 'agent' || kind === 'mcp';

export function accessOf(f: LevelFacts): Access {
  if (!f.membership) {
    // A token owns nothing outside an organisation: it holds only what it is granted there.
    if (f.ownsProject && !isToken(f.kind)) return { level: 'write', via: 'creator', visible: true };
    return { level: 'none', via: null, visible: false };
  }
  if (f.membership.role === 'admin') return { level: 'write', via: 'admin', visible: true };

  // Candidates in order of precedence: the first of the highest level names the reason.
  const candidates: Array<[Level, Via]> = [];
  if (f.grant && f.grant.level !== 'none') candidates.push([f.grant.level, 'grant']);
  // A person writes what they created; a member token holds only its grants, so a catalog an admin token made
  // stops being its own when it is demoted (or its maker is).
  if (f.createdBy === f.principalId && !isToken(f.kind)) candidates.push(['write', 'creator']);

  if (isToken(f.kind)) {
    // A member token sees only what it was granted; a legacy unconfined agent writes everything.
    if (!f.membership.confined) candidates.push(['write', 'agent']);
    const best = pick(candidates);
    return best ? { ...best, visible: true } : { level: 'none', via: null, visible: false };
  }

  // A person who is a member reads every catalog of the organisation unless an admin revoked it (`none`).
  if (f.grant?.level !== 'none') candidates.push(['read', 'membership']);
  const best = pick(candidates);
  return best ? { ...best, visible: true } : { level: 'none', via: 'grant', visible: true };
}

function pick(candidates: Array<[Level, Via]>): { level: Level; via: Via } | null {
  let best: [Level, Via] | null = null;
  for (const c of candidates) if (!best || RANK[c[0]] > RANK[best[0]]) best = c;
  return best ? { level: best[0], via: best[1] } : null;
}
