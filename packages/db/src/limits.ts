// The plans and an organisation's effective limits: the one home every
// deployable that enforces a limit reads (control plane, ingest gateway,
// metering worker). A plan's numbers are constants here; an organisation's
// plan and the operator's overrides are rows (`org_limits`). A subpath
// export: importing it does not load the Prisma client.

/** The limits an override may set, with how each is enforced (GET /v1/admin/plans). */
export const LIMITS = {
  storage_bytes: 'private storage of the organisation (or of an owner\'s projects outside one): over it, catalog and table creation, credential vending and sink sends answer 409 quota_exceeded, and buckets turn read-only at the next enforcement pass; every private bucket carries a hard quota at this number (a public catalog\'s table bucket is in the public tier)',
  public_storage_bytes: 'table bytes of public catalogs (the public tier): publishing past it answers 409 quota_exceeded; a public catalog\'s table bucket carries a hard quota at this number and is never frozen by the private limit',
  objects: 'objects stored across the organisation\'s buckets: reported with headroom in GET /v1/usage; enforced with storage at the enforcement pass',
  projects: 'projects of the organisation: creating one more answers 409 limit_exceeded',
  warehouses: 'catalogs of the organisation (outside one, of the owner\'s projects): creating or restoring one more answers 409 limit_exceeded',
  warehouses_per_project: 'catalogs of one project: creating or restoring one more answers 409 limit_exceeded',
  device_sinks: 'sinks that take device posts: a device token for one more answers 409 limit_exceeded',
  pending_invitations: 'invitations of the organisation not yet accepted nor expired: inviting one more address answers 409 limit_exceeded (each invitation is a mail Floe sends)',
} as const;

export type LimitName = keyof typeof LIMITS;
export type Limits = Record<LimitName, number>;

/** The free plan's numbers (spec: Limits; values the spec does not give are Floe's, documented in docs/api.md). */
const FREE: Limits = {
  storage_bytes: 5_368_709_120,
  public_storage_bytes: 50 * 1024 ** 3,
  objects: 1_000_000,
  projects: 20,
  warehouses: 200,
  warehouses_per_project: 10,
  device_sinks: 10,
  pending_invitations: 100,
};

/** Plans by name. `custom` carries the free numbers until an operator overrides them (spec: Operator routes). */
export const PLANS: Record<'free' | 'custom', Limits> = { free: FREE, custom: { ...FREE } };
export type PlanName = keyof typeof PLANS;
export const PLAN_NAMES = Object.keys(PLANS) as PlanName[];

export const isPlanName = (v: unknown): v is PlanName => typeof v === 'string' && Object.hasOwn(PLANS, v);
export const isLimitName = (v: unknown): v is LimitName => typeof v === 'string' && Object.hasOwn(LIMITS, v);

export interface EffectiveLimits {
  plan: PlanName;
  overrides: Partial<Limits>;
  limits: Limits;
  note: string | null;
}

/** The plan's numbers with the overrides laid over them. */
export function applyOverrides(plan: PlanName, overrides: Partial<Limits>): Limits {
  const limits = { ...PLANS[plan] };
  for (const [k, v] of Object.entries(overrides)) if (isLimitName(k) && typeof v === 'number') limits[k] = v;
  return limits;
}

/** An `overrides` value as stored, keeping only known names with non-negative whole numbers. */
export function overridesOf(stored: unknown): Partial<Limits> {
  const out: Partial<Limits> = {};
  if (stored && typeof stored === 'object') {
    for (const [k, v] of Object.entries(stored as Record<string, unknown>)) {
      if (isLimitName(k) && typeof v === 'number' && Number.isInteger(v) && v >= 0) out[k] = v;
    }
  }
  return out;
}

/** A pg pool or client, or a Prisma client or transaction (its raw query). */
type Queryable =
  | { query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, any>> }> }
  | { $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): PromiseLike<T> };

/** The organisation's plan, overrides and effective limits; outside an organisation (null), the free plan. */
export async function effectiveLimits(db: Queryable, orgId: string | null): Promise<EffectiveLimits> {
  if (!orgId) return { plan: 'free', overrides: {}, limits: applyOverrides('free', {}), note: null };
  const text = 'SELECT plan, overrides, note FROM org_limits WHERE org_id = $1';
  const rows = 'query' in db ? (await db.query(text, [orgId])).rows : await db.$queryRawUnsafe<Array<Record<string, any>>>(text, orgId);
  const row = rows[0];
  return { ...limitsOfRow(row ?? null), note: row?.note ?? null };
}

/**
 * An `org_limits` row (plan and overrides) as limits: the plan's numbers with
 * the overrides laid over them; the free plan without a row. For readers that
 * fetched the row with something else (the ingest gateway's sink lookup).
 */
export function limitsOfRow(row: { plan?: unknown; overrides?: unknown } | null): Omit<EffectiveLimits, 'note'> {
  const plan: PlanName = isPlanName(row?.plan) ? row.plan : 'free';
  const overrides = overridesOf(row?.overrides);
  return { plan, overrides, limits: applyOverrides(plan, overrides) };
}

/**
 * Whether a scope's stored bytes are over its storage limit: at the limit
 * counts as over, as for creation's refusal (nothing more fits). Over, the
 * enforcement pass turns the scope's buckets read-only; under, it lifts them.
 */
export const overStorageLimit = (storedBytes: number, limitBytes: number): boolean => storedBytes >= limitBytes;

/**
 * Which tier each bucket of a catalog counts in, so which limit its hard
 * quota carries and whether the private tier's freeze touches it. A public
 * catalog's table bucket is in the public tier (`public_storage_bytes`); its
 * blob bucket is never public and stays private, as does every bucket of a
 * private catalog. scopeStoredBytes (usage.ts) counts the bytes by the same rule.
 */
export function tierBuckets(w: { tableBucket: string; blobBucket: string; publicSince: Date | null }): { private: string[]; public: string[] } {
  return w.publicSince ? { private: [w.blobBucket], public: [w.tableBucket] } : { private: [w.tableBucket, w.blobBucket], public: [] };
}
