import type { Express } from 'express';
import { ChangeOrgLimitsBody } from '@floe/api';
import { parse, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { parseLimit } from '../domain/operator/audit-query';
import { changeView, orgLimitsAuditView, orgLimitsView, patchOrgLimits, plansView, requireOperator, resolveOrg, type QuotaReset } from '../domain/operator/operator-limits';

// Spec: Operator routes (not public by default: the gateway routes them only
// with FLOE_ADMIN_ROUTES_PUBLIC). Every one refuses all but the operator, 403.

/** A quota reset as the audit event keeps it: counts, not bucket names. */
const quotaCounts = (q: QuotaReset | null) => q && { limit_value: q.limit_value, set: q.set.length, errors: q.errors.length };

export function mountOperator(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/admin/plans', {
    get: [...d.authed, (req, res) => {
      requireOperator(req.access!);
      res.json(plansView());
    }],
  });

  route(app, '/v1/admin/orgs/:org_id/limits', {
    get: [...d.authed, async (req, res) => {
      requireOperator(req.access!);
      res.json(await orgLimitsView(d.prisma, await resolveOrg(d.prisma, String(req.params.org_id))));
    }],
    patch: [...d.authed, async (req, res) => {
      // validate, authorize
      requireOperator(req.access!);
      const body = parse(ChangeOrgLimitsBody, req.body ?? {});
      const org = await resolveOrg(d.prisma, String(req.params.org_id));
      // act
      const r = await patchOrgLimits(d, req.access!.principalId, org, body);
      // audit
      await writeAudit(d.db, req, {
        action: 'org.limits.update', orgId: org.id, targetType: 'org', targetId: org.id,
        data: {
          change_id: String(r.change.id), plan: r.plan, previous_plan: r.previousPlan, overrides: r.overrides, previous_overrides: r.previousOverrides,
          note: r.note, changed: r.changed, bucket_quotas: quotaCounts(r.quotas), public_bucket_quotas: quotaCounts(r.publicQuotas),
        },
      });
      // answer
      res.json({
        ...(await orgLimitsView(d.prisma, org)),
        change: changeView(r.change),
        changed: r.changed,
        bucket_quotas: r.quotas,
        public_bucket_quotas: r.publicQuotas,
        note_on_enforcement: 'A changed storage limit re-sets the hard quota of every live private bucket of the organisation now, a changed public allowance that of every public catalog\'s table bucket; read-only flips follow the hourly enforcement pass.',
      });
    }],
  });

  route(app, '/v1/admin/orgs/:org_id/limits/audit', {
    get: [...d.authed, async (req, res) => {
      requireOperator(req.access!);
      // The audit route's rule: default 100, 1..1000.
      const limit = parseLimit(typeof req.query.limit === 'string' ? req.query.limit : req.query.limit === undefined ? undefined : 'invalid');
      const org = await resolveOrg(d.prisma, String(req.params.org_id));
      res.json(await orgLimitsAuditView(d.prisma, org, limit));
    }],
  });
}
