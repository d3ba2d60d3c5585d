import type { AccessContext } from '@floe/accounts';
import { applyOverrides, isLimitName, isPlanName, LIMITS, overridesOf, PLAN_NAMES, PLANS, type Limits, type LimitName, type PlanName } from '@floe/db/limits';
import type { Db, PrismaClient } from '@floe/db';
import { badRequest, forbidden, notFound } from '@floe/http';
import { StorageError, type StorageProvider } from '@floe/storage';
import { limitsChanges, limitsRowOf, organizationByIdOrHandle, quotaBucketsOf, recordLimitsChange, withLimitsLocked, type LimitsChangeRow, type OrgRef } from '../../store/org-limits';

// The operator routes (spec: Operator routes): plans, an organisation's
// limits, the operator's changes and their audit. Only a principal of kind
// `operator` passes; plans and limit names are packages/db/src/limits.ts's.

/** 403 `forbidden` for everyone but the operator (people, admins and tokens alike). */
export function requireOperator(ctx: AccessContext): void {
  if (ctx.kind !== 'operator') throw forbidden('forbidden', 'the operator routes are for the deployment\'s operator only', { needed: 'operator' });
}

export function plansView() {
  return {
    plans: Object.fromEntries(PLAN_NAMES.map((p) => [p, { name: p, limits: PLANS[p] }])),
    override_names: Object.keys(LIMITS),
    enforcement: LIMITS,
    default_plan: 'free',
  };
}

export async function resolveOrg(db: Db, idOrHandle: string): Promise<OrgRef> {
  const org = await organizationByIdOrHandle(db, idOrHandle);
  if (!org) throw notFound('org_not_found', `no organisation ${idOrHandle} (an id or a handle)`);
  return org;
}

const withEnforcement = (limits: Limits) =>
  Object.fromEntries((Object.keys(LIMITS) as LimitName[]).map((k) => [k, { value: limits[k], enforcement: LIMITS[k] }]));

export function changeView(c: LimitsChangeRow) {
  return {
    id: String(c.id), actor_id: c.actorId, at: c.createdAt.toISOString(),
    plan: c.plan, previous_plan: c.previousPlan, overrides: c.overrides, previous_overrides: c.previousOverrides, note: c.note,
  };
}

/** GET /v1/admin/orgs/{org_id}/limits: plan, overrides, effective limits with enforcement, note, last ten changes. */
export async function orgLimitsView(db: Db, org: OrgRef) {
  const row = await limitsRowOf(db, org.id);
  const plan: PlanName = isPlanName(row?.plan) ? row.plan : 'free';
  const overrides = overridesOf(row?.overrides);
  return {
    org_id: org.id, handle: org.handle, name: org.name,
    plan, overrides,
    limits: withEnforcement(applyOverrides(plan, overrides)),
    note: row?.note ?? null,
    updated_at: row?.updatedAt?.toISOString() ?? null, updated_by: row?.updatedBy ?? null,
    changes: (await limitsChanges(db, org.id, 10)).map(changeView),
  };
}

/** GET /v1/admin/orgs/{org_id}/limits/audit: the operator's changes of the organisation's limits, newest first, at most `limit`. */
export async function orgLimitsAuditView(db: Db, org: OrgRef, limit: number) {
  const changes = await limitsChanges(db, org.id, limit);
  return { org_id: org.id, handle: org.handle, changes: changes.map(changeView), count: changes.length, limit };
}

export interface LimitsPatch {
  plan?: string;
  overrides?: Record<string, number | null>;
  note?: string | null;
}

/** Names and values an override may take: 400 `invalid_value` naming the field otherwise. */
export function checkPatch(p: LimitsPatch): void {
  if (p.plan !== undefined && !isPlanName(p.plan)) throw badRequest('invalid_value', `plan is one of ${PLAN_NAMES.join(', ')}`, { field: 'plan', accepts: PLAN_NAMES });
  for (const [name, value] of Object.entries(p.overrides ?? {})) {
    if (!isLimitName(name)) throw badRequest('invalid_value', `${name} is not a limit an override may set`, { field: `overrides.${name}`, accepts: Object.keys(LIMITS) });
    if (value !== null && !(typeof value === 'number' && Number.isSafeInteger(value) && value >= 0)) {
      throw badRequest('invalid_value', `overrides.${name} is a non-negative whole number, or null to remove it`, { field: `overrides.${name}` });
    }
  }
}

export interface QuotaReset {
  limit_value: number;
  set: string[];
  errors: Array<{ bucket: string; error: string }>;
}

/**
 * PATCH /v1/admin/orgs/{org_id}/limits under the organisation's lock: the new
 * plan, overrides and note, one limits-audit row, and — when the effective
 * storage limit changed — the hard quota of every live, unfrozen private
 * bucket of the organisation re-set to it; when the public allowance changed,
 * every public catalog's table bucket's (a bucket the store refuses is
 * reported, not fatal).
 */
export async function patchOrgLimits(d: { prisma: PrismaClient; storage: StorageProvider }, actorId: string, org: OrgRef, p: LimitsPatch) {
  checkPatch(p);
  return withLimitsLocked(d.prisma, org.id, async (tx, row) => {
    const previousPlan: PlanName = isPlanName(row.plan) ? row.plan : 'free';
    const previousOverrides = overridesOf(row.overrides);
    const plan = (p.plan as PlanName | undefined) ?? previousPlan;
    const overrides: Partial<Limits> = { ...previousOverrides };
    for (const [name, value] of Object.entries(p.overrides ?? {}) as Array<[LimitName, number | null]>) {
      if (value === null) delete overrides[name];
      else overrides[name] = value;
    }
    const note = p.note === undefined ? row.note : p.note;
    const before = applyOverrides(previousPlan, previousOverrides);
    const after = applyOverrides(plan, overrides);
    const change = await recordLimitsChange(tx, { orgId: org.id, actorId, plan, previousPlan, overrides, previousOverrides, note });
    const changed = (Object.keys(LIMITS) as LimitName[]).filter((k) => before[k] !== after[k]);
    const buckets = changed.includes('storage_bytes') || changed.includes('public_storage_bytes') ? await quotaBucketsOf(tx, org.id) : null;
    const quotas = buckets && changed.includes('storage_bytes') ? await resetBucketQuotas(d.storage, buckets.private, after.storage_bytes) : null;
    const publicQuotas = buckets && changed.includes('public_storage_bytes') ? await resetBucketQuotas(d.storage, buckets.public, after.public_storage_bytes) : null;
    return { change, plan, previousPlan, overrides, previousOverrides, note, before, after, changed, quotas, publicQuotas };
  });
}

async function resetBucketQuotas(storage: StorageProvider, buckets: string[], limit: number): Promise<QuotaReset> {
  const out: QuotaReset = { limit_value: limit, set: [], errors: [] };
  await Promise.all(buckets.map(async (bucket) => {
    try {
      await storage.setBucketQuota(bucket, limit);
      out.set.push(bucket);
    } catch (err) {
      out.errors.push({ bucket, error: err instanceof StorageError ? err.kind : 'unavailable' });
    }
  }));
  out.set.sort();
  return out;
}
