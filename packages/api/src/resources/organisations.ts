import { z } from 'zod';
import { operations } from '../operation';
import { IsoTime, Id, ONBOARDING_ENGINES, OnboardingConnection } from '../shapes';

// Spec: Organisations and agents; Projects; POST /v1/onboard; GET
// /v1/handles/{handle}; the one-call POST /v1/signup. Every route here is the
// control plane's. An organisation is named by its id (`org_…`) or its handle
// wherever a path takes `{org_id}`; an agent by its id or its live name.

// ---------------------------------------------------------------- requests

/** Roles a request may ask for: `owner` is read as `admin` for one version and never answered. */
const AskedRole = z.enum(['admin', 'member', 'owner']);

/** PATCH /v1/orgs/{org_id} (any other field is 400 `invalid_field`). */
export const UpdateOrgBody = z.object({ name: z.string().trim().min(1).max(100).optional(), domain_join: z.boolean().optional() });

/** PATCH /v1/orgs/{org_id}/members/{member_id}. */
export const UpdateOrgMemberBody = z.object({ role: AskedRole });

/** POST /v1/orgs/{org_id}/domains. */
export const ClaimOrgDomainBody = z.object({ domain: z.string().min(1).max(253) });

const AgentName = z.string().trim().min(1).max(100);

/** An agent's grants: each a catalog of the organisation (id or name) and a level. */
export const AgentGrantList = z.array(z.object({ warehouse_id: z.string().min(1).max(200), level: z.enum(['read', 'write']) }).strict()).max(200);

/** The older list of catalogs (ids, names or `{warehouse_id}`), read as write grants for one more version. */
export const AgentLegacyWarehouseList = z.array(z.union([z.string().min(1).max(200), z.object({ warehouse_id: z.string().min(1).max(200) })])).max(200);

/** POST /v1/orgs/{org_id}/agents. */
export const CreateAgentBody = z.object({
  name: AgentName, role: AskedRole.default('member'), grants: AgentGrantList.optional(), warehouses: AgentLegacyWarehouseList.optional(), warehouse_ids: AgentLegacyWarehouseList.optional(),
});

/** PATCH /v1/orgs/{org_id}/agents/{agent_id}. */
export const UpdateAgentBody = z.object({ name: AgentName.optional(), role: AskedRole.optional(), grants: AgentGrantList.optional() });

/** POST /v1/orgs/{org_id}/invitations. */
export const CreateInvitationBody = z.object({ email: z.string().trim().toLowerCase().email().max(320), role: z.enum(['admin', 'member', 'owner']).default('member') });

/** POST /v1/orgs/invitations/accept. */
export const AcceptInvitationBody = z.object({ token: z.string().min(1).max(256) });

const EngineField = z.string().default('duckdb')
  .refine((v) => (ONBOARDING_ENGINES as readonly string[]).includes(v), { message: `one of ${ONBOARDING_ENGINES.join(', ')}` })
  .meta({ description: `The engine of the connection recipe: ${ONBOARDING_ENGINES.join(', ')}; default duckdb.` });

/** POST /v1/signup (the one-call sign-up). */
export const OneCallSignupBody = z.object({
  email: z.string().trim().toLowerCase().email().max(320),
  workspace: z.string().trim().min(1).max(63),
  engine: EngineField,
  accept_terms: z.unknown().optional().meta({ description: 'Must be exactly `true`.' }),
});

/** POST /v1/onboard. */
export const OnboardBody = z.object({
  engine: EngineField,
  accept_terms: z.unknown().optional().meta({ description: '`true` accepts the Terms in force; required (exactly `true`) for a person who has not accepted them.' }),
  organization_name: z.string().trim().min(1).max(100).optional(),
  handle: z.string().trim().toLowerCase().min(1).max(40).optional(),
  org_id: z.string().min(1).optional(),
});

/** POST /v1/projects. */
export const CreateProjectBody = z.object({
  name: z.string().trim().min(1).max(63).regex(/^[A-Za-z0-9][A-Za-z0-9 _.-]*$/, 'letters, digits, space, _ . - and starting with a letter or digit'),
  provider: z.string().min(1).optional(),
  region: z.string().min(1).optional(),
  org_id: z.string().min(1).optional(),
});

// The organisation policy's request, for the document only: the route parses
// with @floe/accounts' PolicyChange (which imports this package), the same fields and choices.
const PolicyAgents = z.enum(['members', 'admins']);
const PolicyDeviceLogin = z.enum(['members', 'admins', 'nobody']);
const PolicyOAuthConsent = z.enum(['members', 'admins', 'nobody']);
const PolicyPublicCatalogs = z.enum(['admins', 'nobody']);
const PolicySecondFactor = z.enum(['optional', 'required']);
const POLICY_FIELDS = ['agents', 'device_login', 'oauth_consent', 'public_catalogs', 'second_factor'] as const;

const OrgPolicyChangeDoc = z.strictObject({
  agents: PolicyAgents.optional().meta({ description: 'Who may make and edit agents (POST/PATCH …/agents).' }),
  device_login: PolicyDeviceLogin.optional().meta({ description: 'Who may approve a command-line login.' }),
  oauth_consent: PolicyOAuthConsent.optional().meta({ description: 'Who may allow an OAuth application to act for them.' }),
  public_catalogs: PolicyPublicCatalogs.optional().meta({ description: 'Who may make a catalog public (admins only already; `nobody` switches it off).' }),
  second_factor: PolicySecondFactor.optional().meta({ description: '`required`: a member without a second factor enrols at their next password login (401 `mfa_enrolment_required`), their API keys are refused a token (403 `mfa_enrolment_required`), and no member may turn theirs off (409 `mfa_required_by_policy`).' }),
});

// ---------------------------------------------------------------- answers

const Role = z.enum(['admin', 'member']);
const JoinedVia = z.string().meta({ description: 'How the membership came: `creator`, `invitation`, `domain`, `agent`, `device` or `oauth`.' });
const PrincipalKind = z.enum(['human', 'agent', 'mcp', 'operator']);

const OrgMembership = z.object({ org_id: Id, name: z.string(), handle: z.string(), role: Role, joined_via: JoinedVia }).meta({ id: 'OrgMembership' });

const OrgMember = z.object({
  member_id: Id.meta({ description: 'The member\'s principal id.' }),
  principal_id: Id,
  kind: PrincipalKind,
  email: z.string().nullable(),
  display_name: z.string().nullable(),
  role: Role,
  joined_via: JoinedVia,
  joined_at: IsoTime,
}).meta({ id: 'OrgMember' });

const OrgPolicy = z.object({ agents: PolicyAgents, device_login: PolicyDeviceLogin, oauth_consent: PolicyOAuthConsent, public_catalogs: PolicyPublicCatalogs, second_factor: PolicySecondFactor }).meta({ id: 'OrgPolicy' });

const OrgPolicyView = z.object({
  org_id: Id,
  handle: z.string(),
  policy: OrgPolicy,
  defaults: OrgPolicy,
  choices: z.object({ agents: z.array(PolicyAgents), device_login: z.array(PolicyDeviceLogin), oauth_consent: z.array(PolicyOAuthConsent), public_catalogs: z.array(PolicyPublicCatalogs), second_factor: z.array(PolicySecondFactor) }),
  updated_at: IsoTime.nullable(),
  updated_by: Id.nullable(),
  role: Role.meta({ description: 'The caller\'s role in the organisation.' }),
  domain_join: z.boolean().meta({ description: 'Whether people with a verified address on a claimed domain join as members (PATCH /v1/orgs/{org_id} switches it).' }),
  domains: z.array(z.object({ domain: z.string(), claimed_by: Id, claimed_at: IsoTime })).meta({ description: 'The organisation\'s claimed mail domains, by name.' }),
});

const DnsRecord = z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }).meta({ id: 'DomainDnsRecord' });

const DomainClaim = z.object({
  org_id: Id, domain: z.string(), verified: z.literal(true), proof: z.literal('verified_address'), claimed_by: Id, claimed_at: IsoTime, note: z.string(),
}).meta({ id: 'OrgDomainClaim' });

const AgentGrant = z.object({ warehouse_id: Id, name: z.string(), level: z.enum(['read', 'write']) }).meta({ id: 'AgentGrant' });
const AgentCreator = z.object({ principal_id: Id, kind: z.enum(['human', 'agent', 'mcp', 'operator', 'unknown']), display: z.string().nullable() });

const Agent = z.object({
  agent_id: Id,
  principal_id: Id,
  name: z.string(),
  kind: z.enum(['agent', 'mcp']).meta({ description: '`mcp`: the token record of an OAuth consent (no key).' }),
  role: Role,
  status: z.enum(['active', 'revoked']),
  org_id: Id,
  confined: z.boolean(),
  grants: z.array(AgentGrant),
  created_by: AgentCreator.nullable(),
  created_at: IsoTime,
  created_via: JoinedVia,
  last_key_use: z.object({ key_id: Id, at: IsoTime }).nullable(),
  connection: z.object({
    agent_id: Id, name: z.string(), org_id: Id, role: Role, warehouses: z.array(AgentGrant), created_by: Id.nullable(), grants: z.array(AgentGrant),
  }),
}).meta({ id: 'Agent' });

/** One agent read alone: its keys too (never a secret). */
const AgentDetail = Agent.extend({
  keys: z.array(z.object({ key_id: Id, label: z.string(), created_at: IsoTime, last_used_at: IsoTime.nullable(), revoked_at: IsoTime.nullable() })),
});

const Invitation = z.object({
  invitation_id: Id,
  org_id: Id,
  email: z.string(),
  role: Role,
  invited_by: Id,
  created_at: IsoTime,
  expires_at: IsoTime,
  status: z.enum(['pending', 'accepted', 'expired']),
  accepted_at: IsoTime.nullable(),
  accepted_by: Id.nullable(),
}).meta({ id: 'Invitation' });

const ProjectRow = z.object({
  project_id: Id, name: z.string(), provider: z.string(), region: z.string(), org_id: Id.nullable(), created_at: IsoTime,
}).meta({ id: 'Project' });


const Created = z.object({ organization: z.boolean(), project: z.boolean(), warehouse: z.boolean() });

// ---------------------------------------------------------------- params

const OrgParams = z.object({ org_id: z.string().min(1).meta({ description: 'The organisation\'s id (`org_…`) or handle' }) });
const MemberParams = OrgParams.extend({ member_id: Id.meta({ description: 'The member\'s principal id' }) });
const AgentParams = OrgParams.extend({ agent_id: z.string().min(1).meta({ description: 'The agent\'s id, or its name among the live agents' }) });
const DomainParams = OrgParams.extend({ domain: z.string().min(1).meta({ description: 'The domain, e.g. `example.org`' }) });

// The callers of the organisation routes: an API key, a login session, an OAuth tool token.
const CALLER = ['api_key', 'session', 'oauth'] as const;
// Routes whose act an OAuth token can never do (making lasting credentials or catalogs, acting as a person with an address).
const NOT_OAUTH = ['api_key', 'session'] as const;

// What making the first project and catalog `lake` can answer (onboarding and the one-call sign-up).
const MAKES_LAKE = [
  'handle_taken', 'creation_in_progress', 'limit_exceeded', 'quota_exceeded', 'name_too_long_for_bucket', 'bucket_leftover_from_deletion',
  'name_reserved_until_teardown', 'storage_error', 'provisioning',
] as const;

// Naming the catalogs of an agent's grants.
const GRANT_CATALOGS = ['warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted', 'ambiguous_name'] as const;

export const organisations = {
  tag: 'Organisations',
  description: 'Organisations, their members, agents (token records), invitations, domains and policy; handle lookups; onboarding and the one-call sign-up; projects.',
  operations: operations([
    {
      method: 'get', path: '/v1/orgs', id: 'listOrgs', service: 'control-plane',
      summary: 'List the organisations you belong to, with your role',
      description: 'A token (agent) sees its owning organisation and its own role.',
      auth: [...CALLER],
      responses: { 200: { description: 'Your organisations, oldest membership first.', schema: z.object({ organizations: z.array(OrgMembership), count: z.int() }) } },
      errors: [],
    },
    {
      method: 'patch', path: '/v1/orgs/{org_id}', id: 'updateOrg', service: 'control-plane',
      summary: 'Rename an organisation or switch domain join (admin)',
      description: 'Domain join lets people with a verified address on a claimed domain join as members; it needs a claimed domain. Any other field is 400 `invalid_field`.',
      auth: [...CALLER],
      params: OrgParams,
      body: UpdateOrgBody.strict(),
      responses: {
        200: {
          description: 'The organisation after the change; `updated` names the fields that changed and `previous` their values before.',
          schema: z.object({
            org_id: Id, name: z.string(), handle: z.string(), domain_join: z.boolean(), role: Role,
            updated: z.array(z.enum(['name', 'domain_join'])),
            previous: z.object({ name: z.string().optional(), domain_join: z.boolean().optional() }),
          }),
        },
      },
      errors: ['invalid_field', 'invalid_value', 'missing_field', 'no_verified_domain', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'get', path: '/v1/orgs/{org_id}/policy', id: 'getOrgPolicy', service: 'control-plane',
      summary: 'Read the organisation\'s policy (any member)',
      description: 'Who may do each action an organisation can reserve (an action reserved away from the caller answers 403 `org_policy_forbids`), whether domain join is on, and the claimed mail domains.',
      auth: [...CALLER],
      params: OrgParams,
      responses: { 200: { description: 'The policy in force, its defaults and the choices of each field.', schema: OrgPolicyView } },
      errors: ['org_not_found'],
    },
    {
      method: 'patch', path: '/v1/orgs/{org_id}/policy', id: 'updateOrgPolicy', service: 'control-plane',
      summary: 'Change some fields of the organisation\'s policy (admin)',
      description: 'Fields not sent stay. Any other field is 400 `invalid_field`.',
      auth: [...CALLER],
      params: OrgParams,
      body: OrgPolicyChangeDoc,
      responses: {
        200: {
          description: 'The policy after the change; `updated` names the fields that changed and `previous` their values before.',
          schema: OrgPolicyView.extend({ updated: z.array(z.enum(POLICY_FIELDS)), previous: OrgPolicy.partial() }),
        },
      },
      errors: ['invalid_field', 'invalid_value', 'missing_field', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'post', path: '/v1/orgs/{org_id}/domains', id: 'claimOrgDomain', service: 'control-plane',
      summary: 'Claim a mail domain by your own verified address on it (admin)',
      description: 'Public mail providers are never claimable; one domain belongs to one organisation. Without an address on the domain the 409 `domain_not_verified` names the DNS TXT record that proves it instead (`dns_record`, `verify`).',
      auth: [...CALLER],
      params: OrgParams,
      body: ClaimOrgDomainBody,
      responses: {
        201: { description: 'Claimed.', schema: DomainClaim },
        200: { description: 'The organisation held the domain already: the claim as it stands.', schema: DomainClaim },
      },
      errors: ['invalid_value', 'missing_field', 'public_mail_domain', 'too_many_claims', 'domain_not_verified', 'domain_claimed', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'post', path: '/v1/orgs/{org_id}/domains/{domain}/verify', id: 'verifyOrgDomain', service: 'control-plane',
      summary: 'Claim a domain by its DNS TXT record (admin)',
      description: 'The organisation publishes `_floe-challenge.<domain>` TXT `floe-domain-verification=<token>` (the record the claim\'s refusal names); this looks it up and claims the domain. The token is random and kept per organisation and domain (a record handed out before tokens were kept still verifies). 503 `dns_unavailable` (`Retry-After`) when the resolvers did not answer.',
      auth: [...CALLER],
      params: DomainParams,
      responses: {
        200: {
          description: 'The domain is the organisation\'s; `created` is false when it held it already. The record may be removed now.',
          schema: z.object({
            org_id: Id, domain: z.string(), verified: z.literal(true), proof: z.literal('dns_txt'), created: z.boolean(), claimed_by: Id, claimed_at: IsoTime,
            dns_record: DnsRecord, note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'public_mail_domain', 'too_many_claims', 'domain_not_verified', 'domain_claimed', 'dns_unavailable', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'delete', path: '/v1/orgs/{org_id}/domains/{domain}', id: 'removeOrgDomain', service: 'control-plane',
      summary: 'Remove a claimed domain (admin)',
      description: 'Members who joined by it stay; domain join switches off when no domain is left.',
      auth: [...CALLER],
      params: DomainParams,
      responses: {
        200: {
          description: 'Removed.',
          schema: z.object({ org_id: Id, domain: z.string(), removed: z.literal(true), domain_join: z.boolean(), note: z.string() }),
        },
      },
      errors: ['domain_not_found', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'get', path: '/v1/orgs/{org_id}/members', id: 'listOrgMembers', service: 'control-plane',
      summary: 'List the organisation\'s members (any member)',
      auth: [...CALLER],
      params: OrgParams,
      responses: { 200: { description: 'The members (people and tokens), oldest first.', schema: z.object({ org_id: Id, members: z.array(OrgMember), count: z.int() }) } },
      errors: ['org_not_found'],
    },
    {
      method: 'patch', path: '/v1/orgs/{org_id}/members/{member_id}', id: 'updateOrgMember', service: 'control-plane',
      summary: 'Change a member\'s role (admin)',
      description: 'The organisation always keeps one admin who is a person (409 `last_admin`). `owner` is read as `admin`.',
      auth: [...CALLER],
      params: MemberParams,
      body: UpdateOrgMemberBody,
      responses: { 200: { description: 'The member with the new role.', schema: OrgMember.extend({ org_id: Id, previous_role: Role }) } },
      errors: ['invalid_value', 'missing_field', 'member_not_found', 'last_admin', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'delete', path: '/v1/orgs/{org_id}/members/{member_id}', id: 'removeOrgMember', service: 'control-plane',
      summary: 'Remove a member (admin), or leave (your own principal id)',
      description: 'The member\'s grants on the organisation\'s catalogs go with them; the OAuth tokens a person allowed stop at their next request.',
      auth: [...CALLER],
      params: MemberParams,
      responses: {
        200: {
          description: 'Removed; `left` is true when you removed yourself.',
          schema: z.object({ org_id: Id, member_id: Id, removed: z.literal(true), left: z.boolean(), grants_removed: z.int() }),
        },
      },
      errors: ['member_not_found', 'last_admin', 'insufficient_role', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'get', path: '/v1/orgs/{org_id}/agents', id: 'listOrgAgents', service: 'control-plane',
      summary: 'List the organisation\'s agents (any member)',
      description: 'Token records with role, grants, creator and last key use; `include_revoked=true` adds the revoked ones.',
      auth: [...CALLER],
      params: OrgParams,
      query: z.object({ include_revoked: z.enum(['true', 'false']).optional().meta({ description: '`true` lists revoked agents too' }) }),
      responses: { 200: { description: 'The agents, oldest first.', schema: z.object({ org_id: Id, agents: z.array(Agent), count: z.int() }) } },
      errors: ['org_not_found'],
    },
    {
      method: 'post', path: '/v1/orgs/{org_id}/agents', id: 'createOrgAgent', service: 'control-plane',
      summary: 'Make an agent with its API key (shown once)',
      description: 'Admins give either role and any grants; members only the member role, each grant at most their own level. The older `warehouses`/`warehouse_ids` lists are read as write grants (with a `deprecation` note); sending one with `grants` is 400. A sensitive change: a login session whose password was typed over 10 minutes ago is 401 `reauth_required`. An OAuth token cannot make agents.',
      auth: [...NOT_OAUTH],
      params: OrgParams,
      body: CreateAgentBody,
      responses: {
        201: {
          description: 'The agent, with its API key this once.',
          schema: AgentDetail.extend({
            api_key: z.string().meta({ description: 'The secret: `floe_…`' }), key_id: Id, label: z.string(),
            deprecation: z.string().optional().meta({ description: 'Present when the older warehouses list was sent.' }), note: z.string(),
          }),
        },
      },
      errors: [
        'invalid_value', 'missing_field', 'already_exists', 'forbidden', 'insufficient_role', 'org_policy_forbids', 'creator_revoked', 'reauth_required', 'org_not_found',
        ...GRANT_CATALOGS,
      ],
    },
    {
      method: 'get', path: '/v1/orgs/{org_id}/agents/{agent_id}', id: 'getOrgAgent', service: 'control-plane',
      summary: 'Read one agent by id or name (never its key)',
      auth: [...CALLER],
      params: AgentParams,
      responses: { 200: { description: 'The agent, its grants and its keys (no secrets).', schema: AgentDetail } },
      errors: ['token_not_found', 'ambiguous_name', 'org_not_found'],
    },
    {
      method: 'patch', path: '/v1/orgs/{org_id}/agents/{agent_id}', id: 'updateOrgAgent', service: 'control-plane',
      summary: 'Rename an agent, change its role or replace its grants',
      description: 'Admins change any agent; a member only the member agents they made. The grants list replaces the current one, capped by the editor\'s own levels; editing a legacy unconfined agent confines it. A token never edits itself unless it is an admin. A sensitive change (401 `reauth_required` for a stale login session).',
      auth: [...CALLER],
      params: AgentParams,
      body: UpdateAgentBody,
      responses: {
        200: {
          description: 'The agent after the change; `updated` names what changed, `previous` what it was.',
          schema: AgentDetail.extend({
            updated: z.array(z.enum(['name', 'role', 'grants', 'confined'])),
            previous: z.object({ name: z.string(), role: Role, confined: z.boolean(), grants: z.array(AgentGrant) }),
          }),
        },
      },
      errors: [
        'invalid_value', 'missing_field', 'token_not_found', 'already_exists', 'forbidden', 'insufficient_role', 'org_policy_forbids', 'reauth_required', 'insufficient_scope',
        'org_not_found', ...GRANT_CATALOGS,
      ],
    },
    {
      method: 'delete', path: '/v1/orgs/{org_id}/agents/{agent_id}', id: 'revokeOrgAgent', service: 'control-plane',
      summary: 'Revoke an agent: every key refused and the agent suspended at once',
      description: 'Revoking again answers the same with `already_revoked: true`. A sensitive change (401 `reauth_required` for a stale login session).',
      auth: [...CALLER],
      params: AgentParams,
      responses: {
        200: {
          description: 'Revoked.',
          schema: AgentDetail.extend({ revoked: z.literal(true), already_revoked: z.boolean(), keys_revoked: z.int(), grants_removed: z.int() }),
        },
      },
      errors: ['token_not_found', 'ambiguous_name', 'insufficient_role', 'reauth_required', 'insufficient_scope', 'org_not_found'],
    },
    {
      method: 'post', path: '/v1/orgs/{org_id}/invitations', id: 'createOrgInvitation', service: 'control-plane',
      summary: 'Invite an address to the organisation (admin, a person)',
      description: 'The token is shown once and mailed. Inviting an address again replaces its pending invitation, no sooner than 60 s after the last mail (429 `rate_limited`). Invitations last 7 days. A token has no address to invite from (403 `inviter_unknown`).',
      auth: [...NOT_OAUTH],
      params: OrgParams,
      body: CreateInvitationBody,
      responses: {
        201: {
          description: 'The invitation, with its token this once.',
          schema: Invitation.extend({ token: z.string().meta({ description: '`inv_…`' }), token_note: z.string(), delivery: z.enum(['email', 'log']), accept: z.string() }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'insufficient_role', 'inviter_unknown', 'inviter_unverified', 'rate_limited', 'limit_exceeded', 'mail_error', 'org_not_found'],
    },
    {
      method: 'get', path: '/v1/orgs/{org_id}/invitations', id: 'listOrgInvitations', service: 'control-plane',
      summary: 'List the organisation\'s invitations (admin; never their tokens)',
      auth: [...CALLER],
      params: OrgParams,
      responses: { 200: { description: 'The invitations.', schema: z.object({ org_id: Id, invitations: z.array(Invitation), count: z.int() }) } },
      errors: ['insufficient_role', 'org_not_found'],
    },
    {
      method: 'post', path: '/v1/orgs/invitations/accept', id: 'acceptOrgInvitation', service: 'control-plane',
      summary: 'Accept an invitation (signed in with the invited address)',
      description: 'Accepting again answers the same with `joined: false`.',
      auth: [...NOT_OAUTH],
      body: AcceptInvitationBody,
      responses: {
        200: {
          description: 'You are a member with the invited role.',
          schema: z.object({ org_id: Id, invitation_id: Id, role: Role, joined_via: z.literal('invitation'), joined: z.boolean(), note: z.string() }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'invitation_not_found', 'invitation_expired', 'invitation_for_someone_else'],
    },
    {
      method: 'get', path: '/v1/handles/{handle}', id: 'lookUpHandle', service: 'control-plane',
      summary: 'Whether an organisation handle is valid and free',
      description: 'At most 60 lookups a minute from one address (429 `rate_limited`).',
      auth: ['none'],
      params: z.object({ handle: z.string().min(1).meta({ description: 'The handle to look up' }) }),
      responses: {
        200: {
          description: 'The handle\'s standing, and one to use instead when it is not available.',
          schema: z.object({
            handle: z.string(),
            valid: z.boolean(),
            available: z.boolean(),
            reason: z.enum(['invalid', 'double_dash', 'reserved', 'taken']).nullable(),
            suggestion: z.string().nullable(),
            pattern: z.string(),
            note: z.string(),
          }),
        },
      },
      errors: ['rate_limited'],
    },
    {
      method: 'post', path: '/v1/signup', id: 'signUpOneCall', service: 'control-plane',
      summary: 'Sign up in one call (local stacks only)',
      description: 'Makes the account, its first API key, an organisation (unless an invitation or an open claimed domain places the person elsewhere), a project named after the workspace and the catalog `lake`. A deployment that verifies addresses answers 403 `verification_required` (use POST /v1/signup/start and /v1/signup/verify).',
      auth: ['none'],
      body: OneCallSignupBody,
      responses: {
        201: {
          description: 'The account, its API key this once, and the connection of `lake`.',
          schema: z.object({
            api_key: z.string().meta({ description: 'The secret: `floe_…`' }),
            api_key_note: z.string(),
            principal_id: Id,
            project_id: Id.nullable().meta({ description: 'Null for a person who joined an organisation with no project yet.' }),
            warehouse_id: Id.nullable().meta({ description: 'Null for a person who joined an organisation with no `lake`.' }),
            organization: z.object({ org_id: Id, role: Role, joined_via: JoinedVia }),
            connection: OnboardingConnection,
            next: z.array(z.string()),
            terms: z.object({ version: z.string(), accepted: z.literal(true), url: z.string() }),
          }),
        },
      },
      errors: ['verification_required', 'invalid_value', 'missing_field', 'disposable_email', 'terms_required', 'already_exists', ...MAKES_LAKE],
    },
    {
      method: 'post', path: '/v1/onboard', id: 'onboard', service: 'control-plane',
      summary: 'Make sure you have an organisation, a project and a catalog `lake` (idempotent)',
      description: 'Creates only what is missing and answers the connection recipe. A person in no organisation whom one already wants (an invitation, an open claimed domain) joins it and makes nothing. The handle is derived from the name when absent. A person who has not accepted the Terms in force sends `accept_terms: true`. A confined token (a member agent) makes nothing (403 `forbidden`); an OAuth token cannot onboard.',
      auth: [...NOT_OAUTH],
      bodyOptional: true,
      body: OnboardBody,
      responses: {
        200: {
          description: 'Your organisation, project and `lake`; `created` says what this call made.',
          schema: z.object({
            organization: OrgMembership,
            project_id: Id.nullable().meta({ description: 'Null for a person who joined an organisation with no project yet.' }),
            warehouse_id: Id.nullable().meta({ description: 'Null for a person who joined an organisation with no `lake`.' }),
            created: Created,
            connection: OnboardingConnection,
            next: z.array(z.string()),
          }),
        },
      },
      errors: ['invalid_value', 'terms_required', 'org_not_found', 'forbidden', ...MAKES_LAKE],
    },
    {
      method: 'post', path: '/v1/projects', id: 'createProject', service: 'control-plane',
      summary: 'Make a project',
      description: 'Placement (provider, region) is fixed at creation and only the deployment\'s own is offered. Belonging to several organisations, name one with `org_id`. Header `Idempotency-Key` (1-255 characters) makes a retry answer the original response. A confined token (a member agent, an OAuth token) makes none (403 `forbidden`).',
      auth: [...NOT_OAUTH],
      body: CreateProjectBody,
      responses: {
        201: {
          description: 'The project.',
          schema: ProjectRow.extend({ placement_immutable: z.literal(true) }),
          headers: z.object({ 'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'Present when this is the stored answer of an earlier request with the same Idempotency-Key.' }) }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'unsupported_placement', 'org_required', 'org_not_found', 'forbidden', 'already_exists', 'limit_exceeded', 'idempotency_key_reused', 'creation_in_progress'],
    },
    {
      method: 'get', path: '/v1/projects', id: 'listProjects', service: 'control-plane',
      summary: 'List the projects you reach',
      auth: [...CALLER],
      responses: { 200: { description: 'Projects you own or reach through an organisation, oldest first.', schema: z.object({ projects: z.array(ProjectRow), count: z.int() }) } },
      errors: [],
    },
  ]),
};
