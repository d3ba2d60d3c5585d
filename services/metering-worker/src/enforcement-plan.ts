// What the enforcement pass does to a quota scope, as a pure decision.
// Over the storage limit (packages/db/src/limits.ts overStorageLimit, the
// control plane's answer to a report): every catalog of the scope not yet
// read-only is frozen (a bucket quota at its current size: reads work, the
// store refuses writes). Back under: every read-only catalog is lifted (the
// hard quota back at the limit). A catalog that is not read-only carries a
// hard quota at the scope's limit on each bucket; the sweep re-asserts it.

export interface ScopeState {
  over: boolean;
  catalogs: Array<{ id: string; readOnlySince: Date | null }>;
}

export interface EnforcementPlan {
  freeze: string[];
  lift: string[];
}

export function enforcementPlan(s: ScopeState): EnforcementPlan {
  return {
    freeze: s.over ? s.catalogs.filter((c) => !c.readOnlySince).map((c) => c.id) : [],
    lift: s.over ? [] : s.catalogs.filter((c) => c.readOnlySince).map((c) => c.id),
  };
}

/** RGW keeps quotas in whole KiB: the hard quota a bucket shows for a limit in bytes. */
export const quotaAsStored = (limitBytes: number): number => Math.floor(limitBytes / 1024) * 1024;

/** Whether a bucket's quota differs from the hard quota at the scope's limit (so the sweep sets it again). */
export function hardQuotaDrifted(quota: { enabled: boolean; maxBytes: number | null }, limitBytes: number): boolean {
  return !quota.enabled || quota.maxBytes !== quotaAsStored(limitBytes);
}
