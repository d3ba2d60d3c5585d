import { z } from 'zod';
import { badRequest, forbidden } from '@floe/http';
import type { Db, PrismaClient } from '@floe/db';
import type { AccessContext, OrgMembership } from '../access/context';
import { underOrganizationLock } from '../members';
import { orgPolicyRow, organizationPoliciesOf, setOrgPolicy } from '../organization-records';
import { membershipFor, orgAdminFor } from './orgs';

// An organisation's policy: which of its members may do the actions an
// organisation can reserve (spec: Errors rule 2, "an organisation policy
// reserving the action: 403 org_policy_forbids", answered by publishing,
// the org token routes, device approve and token, and the OAuth decision).
// The spec names the org policy route and its codes (org_not_found,
// invalid_field) but shows no shape: this one is Floe's own, one field per
// action, each saying who may do it. The defaults are what Floe does
// without a policy, so an organisation that never set one behaves as before.

export const POLICY_CHOICES = {
  /** POST and PATCH /v1/orgs/{org_id}/agents. */
  agents: ['members', 'admins'],
  /** POST /v1/auth/device/approve, and the agent made when the machine polls. */
  device_login: ['members', 'admins', 'nobody'],
  /** POST /v1/oauth/authorize/decision with allow, and the token record it makes. */
  oauth_consent: ['members', 'admins', 'nobody'],
  /** POST /v1/warehouses/{id}/public (already admin-only; `nobody` switches it off). */
  public_catalogs: ['admins', 'nobody'],
  /**
   * Whether members sign in with a second factor: `required` sends a member
   * without one to enrol at their next password login (401
   * `mfa_enrolment_required`), refuses their API keys' token exchange (403),
   * and keeps them from turning theirs off (409 `mfa_required_by_policy`).
   */
  second_factor: ['optional', 'required'],
} as const;

export type PolicyField = keyof typeof POLICY_CHOICES;
/** The fields that say who may do an action. */
export type PolicyAction = Exclude<PolicyField, 'second_factor'>;
export type OrgPolicy = { [F in PolicyField]: (typeof POLICY_CHOICES)[F][number] };

export const POLICY_DEFAULTS: OrgPolicy = { agents: 'members', device_login: 'members', oauth_consent: 'members', public_catalogs: 'admins', second_factor: 'optional' };
export const POLICY_FIELDS = Object.keys(POLICY_CHOICES) as PolicyField[];

const WORDS: Record<PolicyAction, string> = {
  agents: 'making or editing agents',
  device_login: 'approving a command-line login',
  oauth_consent: 'allowing an application (OAuth) to act for you',
  public_catalogs: 'making a catalog public',
};

/** The request of PATCH …/policy: any of the fields, each one of its choices. */
export const PolicyChange = z.object({
  agents: z.enum(POLICY_CHOICES.agents).optional(),
  device_login: z.enum(POLICY_CHOICES.device_login).optional(),
  oauth_consent: z.enum(POLICY_CHOICES.oauth_consent).optional(),
  public_catalogs: z.enum(POLICY_CHOICES.public_catalogs).optional(),
  second_factor: z.enum(POLICY_CHOICES.second_factor).optional(),
});
export type PolicyChangeRequest = z.infer<typeof PolicyChange>;

/** The policy in force: the stored fields that hold a valid choice over the defaults. */
export function effectivePolicy(stored: unknown): OrgPolicy {
  const s = (stored && typeof stored === 'object' ? stored : {}) as Record<string, unknown>;
  const out: Record<string, string> = { ...POLICY_DEFAULTS };
  for (const f of POLICY_FIELDS) {
    const v = s[f];
    if (typeof v === 'string' && (POLICY_CHOICES[f] as readonly string[]).includes(v)) out[f] = v;
  }
  return out as OrgPolicy;
}

/** Whether the policy keeps `role` from `action`. */
export function policyForbids(policy: OrgPolicy, action: PolicyAction, role: 'admin' | 'member'): boolean {
  const who: string = policy[action];
  return who === 'nobody' || (who === 'admins' && role !== 'admin');
}

/** 403 `org_policy_forbids` when the organisation's policy keeps the caller's role from `action`. */
export async function requirePolicyAllows(db: Db, m: Pick<OrgMembership, 'orgId' | 'handle' | 'role'>, action: PolicyAction): Promise<void> {
  const policy = effectivePolicy((await orgPolicyRow(db, m.orgId))?.policy);
  if (!policyForbids(policy, action, m.role)) return;
  const who = policy[action];
  throw forbidden('org_policy_forbids', `${m.handle}'s policy reserves ${WORDS[action]} to ${who === 'nobody' ? 'no one' : 'its admins'}`, {
    policy: { [action]: who },
    remedy: who === 'nobody'
      ? 'an admin of the organisation changes the policy first (PATCH /v1/orgs/{org_id}/policy)'
      : 'ask an admin of the organisation to do it, or to change the policy (PATCH /v1/orgs/{org_id}/policy)',
  });
}

export interface PolicyView {
  orgId: string;
  handle: string;
  role: 'admin' | 'member';
  policy: OrgPolicy;
  updatedAt: Date | null;
  updatedBy: string | null;
  /** Whether people with a verified address on a claimed domain may join as members (PATCH /v1/orgs/{org_id}). */
  domainJoin: boolean;
  /** The organisation's claimed mail domains, by name. */
  domains: Array<{ domain: string; claimedBy: string; claimedAt: Date }>;
}

async function viewOf(db: Db, m: OrgMembership): Promise<PolicyView> {
  const row = await orgPolicyRow(db, m.orgId);
  return {
    orgId: m.orgId, handle: m.handle, role: m.role, policy: effectivePolicy(row?.policy), updatedAt: row?.policyUpdatedAt ?? null, updatedBy: row?.policyUpdatedBy ?? null,
    domainJoin: row?.domainJoin ?? false, domains: row?.domains ?? [],
  };
}

/** GET …/policy: any member reads it (so a refusal can be understood before it happens). */
export async function readOrgPolicy(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string): Promise<PolicyView> {
  return viewOf(prisma, membershipFor(ctx, orgIdOrHandle));
}

/**
 * PATCH …/policy: an admin (a person or an admin token) changes some fields;
 * the rest stay. Read and written under the organisation's lock, so two
 * admins changing different fields at once both land.
 */
export async function changeOrgPolicy(prisma: PrismaClient, ctx: AccessContext, orgIdOrHandle: string, change: PolicyChangeRequest) {
  const m = orgAdminFor(ctx, orgIdOrHandle, 'changing the organisation\'s policy');
  const asked = POLICY_FIELDS.filter((f) => change[f] !== undefined);
  if (!asked.length) throw badRequest('missing_field', `send one or more of ${POLICY_FIELDS.join(', ')}`, { field: POLICY_FIELDS[0], accepts: POLICY_FIELDS });
  return underOrganizationLock(prisma, m.orgId, async (tx) => {
    const before = await viewOf(tx, m);
    const changes: Partial<OrgPolicy> = {};
    const previous: Partial<OrgPolicy> = {};
    for (const f of asked) {
      if (change[f] === before.policy[f]) continue;
      (changes as Record<string, string>)[f] = change[f]!;
      (previous as Record<string, string>)[f] = before.policy[f];
    }
    if (Object.keys(changes).length) await setOrgPolicy(tx, m.orgId, { ...before.policy, ...changes }, ctx.principalId);
    return { view: Object.keys(changes).length ? await viewOf(tx, m) : before, changes, previous };
  });
}

/** The person's organisations whose policy requires a second factor (login, token exchange and the factor's routes ask). */
export async function organizationsRequiringSecondFactor(db: Db, principalId: string): Promise<Array<{ orgId: string; handle: string; name: string }>> {
  const rows = await organizationPoliciesOf(db, principalId);
  return rows.filter((o) => effectivePolicy(o.policy).second_factor === 'required').map(({ orgId, handle, name }) => ({ orgId, handle, name }));
}

/**
 * How a refusal names the organisations that require a second factor: their
 * handles with the verb agreeing (`acme requires`, `acme, beta require`), and
 * the `organizations` field the answer carries.
 */
export function secondFactorRequirement(orgs: Array<{ orgId: string; handle: string }>) {
  return {
    whoRequire: `${orgs.map((o) => o.handle).join(', ')} require${orgs.length === 1 ? 's' : ''}`,
    organizations: orgs.map((o) => ({ org_id: o.orgId, handle: o.handle })),
  };
}
