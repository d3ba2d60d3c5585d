import type { Express } from 'express';
import { ClaimOrgDomainBody, UpdateOrgBody, UpdateOrgMemberBody } from '@floe/api';
import { claimDomain, releaseDomain, verifyDomainByDns, changeOrgPolicy, POLICY_CHOICES, POLICY_DEFAULTS, POLICY_FIELDS, PolicyChange, readOrgPolicy, type PolicyView, changeRole, listMembers, removeFromOrg, roleOf, updateOrg } from '@floe/accounts';
import { badRequest, parse, route, writeAudit } from '@floe/http';
import type { ControlPlaneDeps } from '../deps';
import { memberRow } from '../responses';

// Spec: Organisations and agents — the organisations, their settings and
// members (the rules are in domain/orgs.ts).

const ORG_FIELDS = ['name', 'domain_join'];

const policyBody = (v: PolicyView) => ({
  org_id: v.orgId, handle: v.handle, policy: v.policy, defaults: POLICY_DEFAULTS, choices: POLICY_CHOICES,
  updated_at: v.updatedAt?.toISOString() ?? null, updated_by: v.updatedBy, role: v.role,
  domain_join: v.domainJoin,
  domains: v.domains.map((x) => ({ domain: x.domain, claimed_by: x.claimedBy, claimed_at: x.claimedAt.toISOString() })),
});

export function mountOrgs(app: Express, d: ControlPlaneDeps): void {
  route(app, '/v1/orgs', {
    get: [...d.authed, (req, res) => {
      const orgs = req.access!.memberships.map((m) => ({ org_id: m.orgId, name: m.name, handle: m.handle, role: m.role, joined_via: m.joinedVia }));
      res.json({ organizations: orgs, count: orgs.length });
    }],
  });

  route(app, '/v1/orgs/:org_id', {
    patch: [...d.authed, async (req, res) => {
      const unknown = Object.keys((req.body ?? {}) as object).filter((k) => !ORG_FIELDS.includes(k));
      if (unknown.length) throw badRequest('invalid_field', `${unknown.join(', ')} cannot be changed here`, { field: unknown[0], accepts: ORG_FIELDS });
      const body = parse(UpdateOrgBody, req.body ?? {});
      const r = await updateOrg(d.prisma, req.access!, String(req.params.org_id), { name: body.name, domainJoin: body.domain_join });
      if (Object.keys(r.changes).length) {
        await writeAudit(d.db, req, { action: 'org.update', orgId: r.org.id, targetType: 'org', targetId: r.org.id, data: { changes: r.changes, previous: r.previous } });
      }
      res.json({ org_id: r.org.id, name: r.org.name, handle: r.org.handle, domain_join: r.org.domainJoin, role: r.role, updated: Object.keys(r.changes), previous: r.previous });
    }],
  });

  route(app, '/v1/orgs/:org_id/policy', {
    get: [...d.authed, async (req, res) => {
      res.json(policyBody(await readOrgPolicy(d.prisma, req.access!, String(req.params.org_id))));
    }],
    patch: [...d.authed, async (req, res) => {
      const unknown = Object.keys((req.body ?? {}) as object).filter((k) => !(POLICY_FIELDS as string[]).includes(k));
      if (unknown.length) throw badRequest('invalid_field', `${unknown.join(', ')} is not a policy field`, { field: unknown[0], accepts: POLICY_FIELDS });
      const r = await changeOrgPolicy(d.prisma, req.access!, String(req.params.org_id), parse(PolicyChange, req.body ?? {}));
      if (Object.keys(r.changes).length) {
        await writeAudit(d.db, req, { action: 'org.update', orgId: r.view.orgId, targetType: 'org', targetId: r.view.orgId, data: { changes: { policy: r.changes }, previous: { policy: r.previous } } });
      }
      res.json({ ...policyBody(r.view), updated: Object.keys(r.changes), previous: r.previous });
    }],
  });

  route(app, '/v1/orgs/:org_id/domains', {
    post: [...d.authed, async (req, res) => {
      const body = parse(ClaimOrgDomainBody, req.body);
      const r = await claimDomain(d, req, req.access!, String(req.params.org_id), body.domain);
      res.status(r.created ? 201 : 200).json({
        org_id: r.orgId, domain: r.domain.domain, verified: true, proof: 'verified_address', claimed_by: r.domain.claimedBy, claimed_at: r.domain.claimedAt.toISOString(),
        note: 'Switch domain_join on (PATCH /v1/orgs/{org_id}) to let people with a verified address here join as members.',
      });
    }],
  });

  route(app, '/v1/orgs/:org_id/domains/:domain/verify', {
    post: [...d.authed, async (req, res) => {
      const r = await verifyDomainByDns(d, req, req.access!, String(req.params.org_id), String(req.params.domain));
      res.json({
        org_id: r.orgId, domain: r.domain.domain, verified: true, proof: 'dns_txt', created: r.created, claimed_by: r.domain.claimedBy, claimed_at: r.domain.claimedAt.toISOString(),
        dns_record: r.record, note: 'The record may be removed now. Switch domain_join on (PATCH /v1/orgs/{org_id}) to let people with a verified address here join as members.',
      });
    }],
  });

  route(app, '/v1/orgs/:org_id/domains/:domain', {
    delete: [...d.authed, async (req, res) => {
      const r = await releaseDomain(d, req, req.access!, String(req.params.org_id), String(req.params.domain));
      res.json({ org_id: r.orgId, domain: r.domain, removed: true, domain_join: r.domainJoin, note: 'Members who joined by this domain stay.' });
    }],
  });

  route(app, '/v1/orgs/:org_id/members', {
    get: [...d.authed, async (req, res) => {
      const { orgId, members } = await listMembers(d.prisma, req.access!, String(req.params.org_id));
      res.json({ org_id: orgId, members: members.map(memberRow), count: members.length });
    }],
  });

  route(app, '/v1/orgs/:org_id/members/:member_id', {
    patch: [...d.authed, async (req, res) => {
      const body = parse(UpdateOrgMemberBody, req.body);
      const r = await changeRole(d.prisma, req.access!, String(req.params.org_id), String(req.params.member_id), roleOf(body.role));
      if (r.previous !== r.member.role) {
        await writeAudit(d.db, req, { action: 'org.member_role', orgId: r.orgId, targetType: 'principal', targetId: r.member.principalId, data: { role: r.member.role, previous: r.previous } });
      }
      res.json({ org_id: r.orgId, ...memberRow(r.member), previous_role: r.previous });
    }],
    delete: [...d.authed, async (req, res) => {
      const r = await removeFromOrg({ prisma: d.prisma, redis: d.redis, redisPrefix: d.config.redisPrefix }, req.access!, String(req.params.org_id), String(req.params.member_id));
      await writeAudit(d.db, req, { action: 'org.member_remove', orgId: r.orgId, targetType: 'principal', targetId: r.member.principalId, data: { left: r.leaving, role: r.member.role, grants_removed: r.grantsRemoved } });
      res.json({ org_id: r.orgId, member_id: r.member.principalId, removed: true, left: r.leaving, grants_removed: r.grantsRemoved });
    }],
  });
}
