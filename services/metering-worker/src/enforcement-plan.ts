import { tierBuckets } from '@floe/db/limits';

// What the enforcement pass does to a quota scope, as a pure decision.
// Over the private storage limit (packages/db/src/limits.ts overStorageLimit,
// the control plane's answer to a report): every catalog of the scope not yet
// read-only is frozen — its private buckets get a bucket quota at their
// current size (reads work, the store refuses writes). Back under: every
// read-only catalog is lifted (each bucket's hard quota back at its tier's
// limit). A public catalog's table bucket is in the public tier
// (limits.ts tierBuckets): the private tier's freeze never touches it, and it
// carries a hard quota at the public allowance, frozen catalog or not. The
// sweep re-asserts the hard quotas a catalog's buckets carry when they drifted.

export interface ScopeCatalog {
  id: string;
  tableBucket: string;
  blobBucket: string;
  readOnlySince: Date | null;
  publicSince: Date | null;
}

/** The scope's limits in bytes: the private storage limit and the public tier's allowance. */
export interface TierLimits {
  storage: number;
  publicStorage: number;
}

export interface HardQuota {
  bucket: string;
  limitBytes: number;
}

export interface EnforcementPlan {
  /** Catalogs to freeze, with the buckets the freeze takes. */
  freeze: Array<{ id: string; buckets: string[] }>;
  /** Catalogs to lift, with the hard quota each bucket gets back. */
  lift: Array<{ id: string; quotas: HardQuota[] }>;
}

/** Each bucket's hard quota at its tier's limit. */
export function hardQuotas(c: ScopeCatalog, limits: TierLimits): HardQuota[] {
  const tiers = tierBuckets(c);
  return [
    ...tiers.private.map((bucket) => ({ bucket, limitBytes: limits.storage })),
    ...tiers.public.map((bucket) => ({ bucket, limitBytes: limits.publicStorage })),
  ];
}

/** The hard quotas a catalog's buckets hold: all of them while writable; frozen, only its public table bucket's (the freeze holds the rest). */
export function standingQuotas(c: ScopeCatalog, limits: TierLimits, frozen: boolean): HardQuota[] {
  const frozenBuckets = frozen ? tierBuckets(c).private : [];
  return hardQuotas(c, limits).filter((q) => !frozenBuckets.includes(q.bucket));
}

export function enforcementPlan(s: { over: boolean; limits: TierLimits; catalogs: ScopeCatalog[] }): EnforcementPlan {
  return {
    freeze: s.over ? s.catalogs.filter((c) => !c.readOnlySince).map((c) => ({ id: c.id, buckets: tierBuckets(c).private })) : [],
    lift: s.over ? [] : s.catalogs.filter((c) => c.readOnlySince).map((c) => ({ id: c.id, quotas: hardQuotas(c, s.limits) })),
  };
}

/** RGW keeps quotas in whole KiB: the hard quota a bucket shows for a limit in bytes. */
export const quotaAsStored = (limitBytes: number): number => Math.floor(limitBytes / 1024) * 1024;

/** Whether a bucket's quota differs from the hard quota at a limit (so the sweep sets it again). */
export function hardQuotaDrifted(quota: { enabled: boolean; maxBytes: number | null }, limitBytes: number): boolean {
  return !quota.enabled || quota.maxBytes !== quotaAsStored(limitBytes);
}

/**
 * The standing hard quotas of a just-measured catalog that drifted from
 * their limit, by the quotas its stats call read (`read`, per bucket; a bucket
 * not read is left alone). `frozen`: read-only, or about to be by this pass.
 */
export function driftedQuotas(
  c: ScopeCatalog, limits: TierLimits, frozen: boolean, read: Map<string, { enabled: boolean; maxBytes: number | null }>,
): HardQuota[] {
  return standingQuotas(c, limits, frozen).filter((q) => {
    const quota = read.get(q.bucket);
    return quota !== undefined && hardQuotaDrifted(quota, q.limitBytes);
  });
}
