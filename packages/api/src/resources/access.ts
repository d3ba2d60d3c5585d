import { z } from 'zod';
import { FlatOAuthError, errorEnvelope } from '../errors';
import { operations } from '../operation';
import { IsoTime, Id } from '../shapes';

// Spec: Health and identity (the token exchange and the public key
// documents), Device authorisation (command-line login), and the remote
// tool-host authorization server (OAuth 2.1) with its consent routes. The
// machine's half of a device login and every /oauth/* endpoint are called
// without a credential; the person's half in a signed-in browser. The
// /oauth/* endpoints refuse in the flat form `{error, error_description}`.

// ---- Request schemas the identity routes parse with --------------------------

/** POST /v1/tokens: the API key to exchange. */
export const TokenRequestBody = z.object({ api_key: z.string().min(1) });

const Level = z.enum(['read', 'write']);
const Role = z.enum(['admin', 'member']);
/** A catalog's id or name as a machine or the page sends it. */
const Ref = z.string().trim().min(1).max(200).regex(/^[A-Za-z0-9_.-]+$/, 'a catalog id or name');
/** Free text a machine names itself with: printable, one line. */
const Text = (max: number) => z.string().trim().min(1).max(max).regex(/^[^\u0000-\u001f\u007f]+$/, 'printable text on one line');
/** The longest name an agent may have (services/identity domain/device-codes.ts AGENT_NAME_MAX): a device login's `client_name`. */
const DEVICE_AGENT_NAME_MAX = 100;

/** A catalog asked for or chosen; without a level, the requested level. */
const Catalog = z.object({ warehouse_id: Ref.optional(), name: Ref.optional(), level: Level.optional() })
  .refine((c) => (c.warehouse_id === undefined) !== (c.name === undefined), 'name a catalog by warehouse_id or by name');
const OneSpelling = { message: 'send warehouses or the older warehouse_ids, not both', path: ['warehouse_ids'] };

/** POST /v1/auth/device: a machine starts a device login (every field optional). */
export const DeviceLoginStartBody = z.object({
  client: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'letters, digits, dot, dash, underscore').default('cli'),
  hostname: Text(253).optional(),
  client_name: Text(DEVICE_AGENT_NAME_MAX).optional(),
  requested_level: Level.default('write'),
  requested_role: Role.default('member').meta({ description: 'The agent\'s role: `admin` only if an admin of the organisation approves.' }),
  warehouses: z.array(Catalog).max(50).optional(),
  warehouse_ids: z.array(Ref).max(50).optional(),
}).refine((b) => !(b.warehouses && b.warehouse_ids), OneSpelling);

/** POST /v1/auth/device/token: the machine polls with its device code. */
export const DeviceLoginPollBody = z.object({ device_code: z.string().min(1).max(200) });

/** POST /v1/auth/device/approve: a person approves (or with `deny`, refuses) a device login. */
export const DeviceLoginApproveBody = z.object({
  user_code: z.string().max(64),
  deny: z.boolean().default(false),
  org_id: z.string().trim().min(1).max(200).optional(),
  warehouses: z.array(Catalog).max(50).optional(),
  warehouse_ids: z.array(Ref).max(50).optional(),
  level: Level.optional(),
  role: Role.optional().meta({ description: 'The agent\'s role, at most the requested one (default: the requested role, capped by yours).' }),
}).refine((b) => !(b.warehouses && b.warehouse_ids), OneSpelling);

/** GET /v1/auth/device/pending and /status: the user code a person typed (`org_id`: the organisation to act in). */
export const DeviceLoginLookupQuery = z.object({ user_code: z.string().max(64), org_id: z.string().trim().min(1).max(200).optional() });

/** GET /v1/oauth/authorize/pending: the consent request to show. */
export const OAuthConsentLookupQuery = z.object({
  request_id: z.string().trim().min(1).max(100),
  org_id: z.string().trim().min(1).max(200).optional(),
});

const ConsentRequestId = z.string().trim().min(1).max(100);
/** POST /v1/oauth/authorize/decision: allow with the catalogs chosen, or refuse. */
export const OAuthConsentDecisionBody = z.discriminatedUnion('allow', [
  z.object({ request_id: ConsentRequestId, allow: z.literal(false) }).strict(),
  z.object({
    request_id: ConsentRequestId,
    allow: z.literal(true),
    grants: z.array(z.object({ warehouse_id: z.string().trim().min(1).max(200), level: z.enum(['read', 'write']) }).strict()).max(200),
    org_id: z.string().trim().min(1).max(200).optional(),
    role: z.enum(['member', 'admin']).default('member'),
  }).strict(),
]);

// ---- What the OAuth endpoints accept (read by hand or by identity's domain; for the document only) ----

const OAUTH_SCOPES = ['catalogs:read', 'catalogs:write'] as const;
const Scope = z.enum(OAUTH_SCOPES);

const AuthorizeQuery = z.object({
  client_id: z.string().meta({ description: 'The https URL of the client\'s metadata document, or a registered `dcr_…` id.' }),
  redirect_uri: z.string().meta({ description: 'One of the client\'s redirect URIs (exact; a loopback one on any port).' }),
  response_type: z.literal('code'),
  code_challenge: z.string().regex(/^[A-Za-z0-9_-]{43}$/).meta({ description: 'The S256 PKCE challenge: 43 base64url characters.' }),
  code_challenge_method: z.literal('S256'),
  resource: z.string().meta({ description: 'The tool server\'s URL, the only resource this server issues tokens for.' }),
  scope: z.string().optional().meta({ description: 'Space-separated scopes (`catalogs:read`, `catalogs:write`); without it, `catalogs:read`.' }),
  state: z.string().max(1024).optional().meta({ description: 'Given back on the redirect; at most 1,024 characters.' }),
});

const HttpsUrl = z.string().max(2000).meta({ description: 'An https URL.' });
const RegistrationRequest = z.object({
  client_name: z.string().min(1).max(200),
  redirect_uris: z.array(z.string().max(2000)).min(1).max(20).meta({ description: 'https URIs, loopback http on any port, or a native private-use scheme.' }),
  grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])).min(1).optional().meta({ description: 'Must include authorization_code; default both.' }),
  response_types: z.array(z.literal('code')).min(1).optional(),
  token_endpoint_auth_method: z.literal('none').optional().meta({ description: 'Public clients only.' }),
  client_uri: HttpsUrl.optional(),
  logo_uri: HttpsUrl.optional(),
  application_type: z.enum(['web', 'native']).optional().meta({ description: 'Default web.' }),
  software_id: z.string().min(1).max(200).optional(),
});

const TokenRequest = z.discriminatedUnion('grant_type', [
  z.object({
    grant_type: z.literal('authorization_code'),
    code: z.string().max(2048),
    code_verifier: z.string().regex(/^[A-Za-z0-9\-._~]{43,128}$/).meta({ description: 'The PKCE verifier whose S256 is the code_challenge.' }),
    client_id: z.string().max(2048),
    redirect_uri: z.string().max(2048).meta({ description: 'The redirect URI of the authorization request.' }),
    resource: z.string().max(2048).optional().meta({ description: 'When sent, the resource the consent was for.' }),
  }),
  z.object({
    grant_type: z.literal('refresh_token'),
    refresh_token: z.string().max(2048).meta({ description: '`ort_…`' }),
    client_id: z.string().max(2048),
    scope: z.string().optional().meta({ description: 'A narrower set of the consented scopes, space-separated, for this access token only.' }),
    resource: z.string().max(2048).optional(),
  }),
]);

const RevokeRequest = z.object({
  token: z.string().max(2048).optional().meta({ description: 'A refresh token or an access token of this service.' }),
  token_type_hint: z.enum(['refresh_token', 'access_token']).optional(),
  client_id: z.string().max(2048).optional().meta({ description: 'When sent, the token is revoked only if it was issued to this client.' }),
});

// ---- Response shapes -----------------------------------------------------------

const Via = z.enum(['admin', 'grant', 'creator', 'agent', 'membership']);
const HeldLevel = z.enum(['read', 'write']);

const GivenCatalog = z.object({ warehouse_id: Id, name: z.string(), level: Level }).meta({ id: 'GivenCatalog' });

const Organization = z.object({ org_id: Id, name: z.string(), handle: z.string(), role: Role });

/** An agent's connection block, as a device login's collection and an OAuth consent answer it. */
const AgentConnection = z.object({
  agent_id: Id,
  name: z.string(),
  org_id: Id,
  role: Role,
  warehouses: z.array(GivenCatalog),
  created_by: Id.nullable().meta({ description: 'The person who approved (the agent\'s maker).' }),
  grants: z.array(GivenCatalog),
}).meta({ id: 'ApprovedAgentConnection' });

const noStore = 'Answered with `Cache-Control: no-store`.';

/** The device login's description, shared by the person's routes. */
const deviceFacts = {
  user_code: z.string().meta({ description: '`XXXX-XXXX`' }),
  client: z.string(),
  hostname: z.string().nullable(),
  client_name: z.string().meta({ description: 'The name the agent will have (by default the host\'s).' }),
};

const DeviceDecision = z.object({
  approved: z.boolean(),
  claimed: z.literal(false),
  ...deviceFacts,
  label: z.string().meta({ description: 'The new key\'s label: `<client> on <host>`.' }),
  requested_level: Level,
  requested_role: Role,
  connection: z.object({
    name: z.string(),
    level: Level.nullable().meta({ description: 'The highest level given.' }),
    role: Role.meta({ description: 'The agent\'s role: the chosen or requested one, `member` unless you are an admin.' }),
    org_id: Id,
    warehouses: z.array(GivenCatalog),
  }).nullable().meta({ description: 'What the agent will hold; null when refused.' }),
  expires_in: z.int(),
  note: z.string(),
});

const OAuthClientView = z.object({
  client_id: z.string(),
  client_name: z.string().nullable(),
  client_uri: z.string().nullable(),
  logo_uri: z.string().nullable(),
  host: z.string().nullable(),
  registration: z.enum(['cimd', 'dynamic']).meta({ description: '`cimd`: a client metadata document; `dynamic`: registered at POST /oauth/register.' }),
}).meta({ id: 'OAuthClientSummary' });

const AuthorizationServerMetadata = z.object({
  issuer: z.string(),
  authorization_endpoint: z.string(),
  token_endpoint: z.string(),
  revocation_endpoint: z.string(),
  jwks_uri: z.string(),
  registration_endpoint: z.string().optional().meta({ description: 'Only while dynamic registration is on.' }),
  scopes_supported: z.array(Scope),
  response_types_supported: z.array(z.literal('code')),
  grant_types_supported: z.array(z.enum(['authorization_code', 'refresh_token'])),
  code_challenge_methods_supported: z.array(z.literal('S256')),
  token_endpoint_auth_methods_supported: z.array(z.literal('none')),
  client_id_metadata_document_supported: z.literal(true),
  authorization_response_iss_parameter_supported: z.literal(true),
});

const OpenIdConfiguration = z.object({
  issuer: z.string(),
  jwks_uri: z.string(),
  token_endpoint: z.string().meta({ description: 'POST /v1/tokens.' }),
  grant_types_supported: z.array(z.literal('client_credentials')),
  response_types_supported: z.array(z.literal('token')),
  subject_types_supported: z.array(z.literal('public')),
  id_token_signing_alg_values_supported: z.array(z.literal('RS256')),
  token_endpoint_auth_methods_supported: z.array(z.literal('none')),
  claims_supported: z.array(z.string()),
});

const JsonWebKeySet = z.object({
  keys: z.array(z.object({
    kty: z.literal('RSA'),
    n: z.string(),
    e: z.string(),
    kid: z.string().meta({ description: 'The key\'s RFC 7638 thumbprint; every token names it.' }),
    alg: z.literal('RS256'),
    use: z.literal('sig'),
  })).meta({ description: 'The published signing keys, newest first: two during a rotation.' }),
}).meta({ id: 'JsonWebKeySet' });

const cacheHeader = (value: string) => z.object({ 'Cache-Control': z.string().meta({ description: `\`${value}\`` }) });

/** The envelope's 400 of the device poll: RFC 8628's codes, all at 400 (the index puts `access_denied` at 403 for /oauth/register). */
const POLL_400_CODES = ['access_denied', 'authorization_pending', 'expired_token', 'invalid_grant', 'invalid_value', 'missing_field', 'slow_down'] as const;
const PollRefusal = errorEnvelope(POLL_400_CODES);

const flat400 = (codes: string[]) => ({
  description: `Bad request: ${codes.map((c) => `\`${c}\``).join(', ')} (the flat form)`,
  schema: FlatOAuthError,
});

export const access = {
  tag: 'Tokens, device login and OAuth',
  description: 'Exchanging an API key for an access token, the public signing keys, the CLI’s device login, and Floe’s OAuth 2.1 authorization server for tool hosts with its consent page’s routes.',
  operations: operations([
    // ---- Tokens and discovery ----
    {
      method: 'post', path: '/v1/tokens', id: 'createAccessToken', service: 'identity',
      summary: 'Exchange an API key for a 900 s access token',
      description: 'Optional: every authenticated route takes the API key itself. The token is RS256, signed with a key of /jwks.json. Ten wrong secrets for one key id from one address within ten minutes answer 429 with `Retry-After`. A person\'s key is refused (403 `mfa_enrolment_required`) while an organisation of theirs requires a second factor they have not enrolled.',
      auth: ['none'],
      body: TokenRequestBody,
      responses: {
        200: {
          description: 'An access token for the key\'s principal.',
          schema: z.object({
            access_token: z.string().meta({ description: 'A JWT (RS256).' }),
            token_type: z.literal('Bearer'),
            expires_in: z.int().meta({ description: 'Seconds: 900.' }),
            principal_id: Id,
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'invalid_api_key', 'api_key_revoked', 'account_deleted', 'principal_suspended', 'creator_revoked', 'rate_limited', 'mfa_enrolment_required', 'mfa_unavailable'],
    },
    {
      method: 'get', path: '/.well-known/openid-configuration', id: 'getOpenIdConfiguration', service: 'identity',
      summary: 'The OpenID discovery document of Floe\'s tokens',
      auth: ['none'],
      responses: { 200: { description: 'Issuer, key set and token endpoint (`Cache-Control: public, max-age=3600`).', schema: OpenIdConfiguration, headers: cacheHeader('public, max-age=3600') } },
      errors: [],
    },
    {
      method: 'get', path: '/jwks.json', id: 'getJwks', service: 'identity',
      summary: 'The public keys that sign Floe\'s tokens',
      auth: ['none'],
      responses: { 200: { description: 'The JSON Web Key Set (`Cache-Control: public, max-age=60`).', schema: JsonWebKeySet, headers: cacheHeader('public, max-age=60') } },
      errors: [],
    },
    {
      method: 'get', path: '/.well-known/jwks.json', id: 'getWellKnownJwks', service: 'identity',
      summary: 'The public keys that sign Floe\'s tokens (same as /jwks.json)',
      auth: ['none'],
      responses: { 200: { description: 'The JSON Web Key Set (`Cache-Control: public, max-age=60`).', schema: JsonWebKeySet, headers: cacheHeader('public, max-age=60') } },
      errors: [],
    },

    // ---- Device login ----
    {
      method: 'post', path: '/v1/auth/device', id: 'startDeviceLogin', service: 'identity',
      summary: 'Start a device login (the machine, without a credential)',
      description: 'Makes a device code (the machine\'s secret, for polling) and a user code a person approves at `verification_uri`. Without catalogs, the organisation\'s default catalog at the requested level. `warehouse_ids` (ids or names, at the requested level) is an older spelling of `warehouses`. 60 starts an hour per address. ' + noStore,
      auth: ['none'],
      body: DeviceLoginStartBody,
      responses: {
        200: {
          description: 'The codes; poll POST /v1/auth/device/token every `interval` seconds.',
          schema: z.object({
            device_code: z.string().meta({ description: 'The machine\'s secret, shown once.' }),
            user_code: z.string().meta({ description: '`XXXX-XXXX`' }),
            verification_uri: z.string(),
            verification_uri_complete: z.string(),
            expires_in: z.int().meta({ description: 'Seconds: 900.' }),
            interval: z.int().meta({ description: 'Seconds between polls: 5.' }),
            client_name: z.string(),
            requested_level: Level,
            requested_role: Role,
            warehouse_ids: z.array(z.string()).meta({ description: 'The catalogs asked for, by id or name.' }),
            warehouses: z.array(z.object({ warehouse_id: z.string().optional(), name: z.string().optional(), level: Level })),
          }),
        },
      },
      errors: ['invalid_value', 'rate_limited'],
    },
    {
      method: 'post', path: '/v1/auth/device/token', id: 'pollDeviceLogin', service: 'identity',
      summary: 'Poll a device login; once approved, collect the agent\'s API key',
      description: 'Until a person decides, 400 with `authorization_pending` (keep polling; `interval` says how often), `slow_down` (the interval grew by 5 s), `expired_token`, `access_denied` (refused) or `invalid_grant` (unknown code, or the key was collected). Once approved, the first poll makes the agent and answers its key, once. ' + noStore,
      auth: ['none'],
      body: DeviceLoginPollBody,
      responses: {
        200: {
          description: 'The new agent\'s own API key (never the person\'s), shown once.',
          schema: z.object({
            api_key: z.string().meta({ description: 'The secret: `floe_…`' }),
            key_id: Id,
            label: z.string(),
            principal_id: Id.meta({ description: 'The agent\'s.' }),
            kind: z.literal('agent'),
            token_type: z.literal('api_key'),
            connection: AgentConnection,
            note: z.string(),
          }),
        },
        400: {
          description: `Bad request: ${POLL_400_CODES.map((c) => `\`${c}\``).join(', ')}`,
          schema: PollRefusal,
        },
      },
      errors: ['invalid_value', 'missing_field', 'authorization_pending', 'slow_down', 'expired_token', 'invalid_grant', 'forbidden', 'org_not_found', 'org_policy_forbids', 'warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted'],
    },
    {
      method: 'get', path: '/v1/auth/device/pending', id: 'getPendingDeviceLogin', service: 'identity',
      summary: 'Read a device login waiting for a decision (a person)',
      description: 'What the machine asked for, and every catalog of the organisation the caller holds something on with the level they could give. Reading decides nothing. A person\'s act: a token (an agent\'s key, an OAuth token) gets 403. More than 20 user codes that match nothing in an hour answer 429.',
      auth: ['api_key', 'session'],
      query: DeviceLoginLookupQuery,
      responses: {
        200: {
          description: 'The login and the catalogs on offer.',
          schema: z.object({
            ...deviceFacts,
            requested_level: Level,
            level: Level.nullable().meta({ description: 'The highest level on offer; null when none.' }),
            requested_role: Role,
            role: Role.meta({ description: 'The role approval would give: `admin` only when requested and you are an admin of the organisation.' }),
            organization: Organization,
            warehouses: z.array(z.object({
              warehouse_id: Id.nullable().meta({ description: 'Null for the catalog approval will create (`pending`).' }),
              name: z.string(),
              level: Level.nullable().meta({ description: 'The level offered (asked, capped by yours); null when not requested.' }),
              my_level: HeldLevel,
              my_via: Via.nullable(),
              capped: z.boolean(),
              pending: z.boolean().meta({ description: 'A catalog approval creates first (`demo_data`, for an organisation without one).' }),
              requested: z.boolean(),
            })),
            requested: z.array(z.object({ warehouse_id: Id, name: z.string(), level: Level.nullable() })),
            expires_in: z.int(),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'forbidden', 'device_code_not_found', 'rate_limited', 'org_required', 'org_not_found', 'warehouse_not_found', 'ambiguous_name', 'warehouse_deleting', 'warehouse_deleted'],
    },
    {
      method: 'post', path: '/v1/auth/device/approve', id: 'approveDeviceLogin', service: 'identity',
      summary: 'Approve or refuse a device login (a person)',
      description: 'Approving records the catalogs chosen, each at a level capped by the approver\'s own, and the role (the requested one, or lower with `role`; `member` unless the approver is an admin); the agent is made when the machine collects its key. `deny: true` refuses. The older pair: `level` lowers every level, `warehouse_ids` narrows the set. An organisation without a catalog gets `demo_data` first. A person\'s act: a token gets 403.',
      auth: ['api_key', 'session'],
      body: DeviceLoginApproveBody,
      responses: { 200: { description: 'The decision.', schema: DeviceDecision } },
      errors: ['invalid_value', 'missing_field', 'forbidden', 'device_code_not_found', 'rate_limited', 'org_required', 'org_not_found', 'org_policy_forbids', 'warehouse_not_found', 'ambiguous_name', 'warehouse_deleting', 'warehouse_deleted', 'storage_error'],
    },
    {
      method: 'get', path: '/v1/auth/device/status', id: 'getDeviceLoginStatus', service: 'identity',
      summary: 'A device login\'s state (a person)',
      description: 'A pending login is visible to any signed-in person; a decided one only to the person who decided it (404 to anyone else). A token gets 403.',
      auth: ['api_key', 'session'],
      query: DeviceLoginLookupQuery,
      responses: {
        200: {
          description: 'The login\'s state.',
          schema: z.object({
            user_code: z.string(),
            status: z.enum(['pending', 'approved', 'denied', 'used', 'expired']),
            claimed: z.boolean().meta({ description: 'Whether the machine collected its key.' }),
            client: z.string(),
            hostname: z.string().nullable(),
            client_name: z.string(),
            expires_in: z.int(),
            connection: z.object({
              name: z.string(),
              org_id: Id,
              role: Role,
              agent_id: Id.nullable().meta({ description: 'Once the key was collected.' }),
              warehouses: z.array(GivenCatalog),
            }).nullable().meta({ description: 'Null until approved, and when refused.' }),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'forbidden', 'device_code_not_found', 'rate_limited'],
    },

    // ---- OAuth authorization server ----
    {
      method: 'get', path: '/.well-known/oauth-authorization-server', id: 'getOAuthServerMetadata', service: 'identity',
      summary: 'The OAuth authorization server\'s metadata (RFC 8414)',
      auth: ['none'],
      responses: { 200: { description: 'The endpoints and what they support (`Cache-Control: public, max-age=3600`).', schema: AuthorizationServerMetadata, headers: cacheHeader('public, max-age=3600') } },
      errors: [],
    },
    {
      method: 'get', path: '/oauth/authorize', id: 'authorizeOAuthClient', service: 'identity',
      summary: 'Start an OAuth authorization (the person\'s browser)',
      description: 'Checked in this order: the address\'s budget (120 an hour); the client and its redirect URI, refused in place (400, never redirected); then the rest, refused by a 302 to the redirect URI with `error` (`invalid_request`, `unsupported_response_type`, `invalid_target`, `invalid_scope`), `error_description`, `state` and `iss`. A request that passes becomes a consent request (15 minutes) and the browser is sent to the consent page `/app/authorize?request=<id>`.',
      auth: ['none'],
      query: AuthorizeQuery,
      responses: {
        302: {
          description: 'To the consent page, or back to the client\'s redirect URI with an error.',
          headers: z.object({ Location: z.string().meta({ description: '`{base_url}/app/authorize?request=oar_…`, or the redirect URI with `error`, `error_description`, `state`, `iss`.' }) }),
        },
        400: flat400(['invalid_client', 'invalid_request']),
      },
      errors: ['invalid_request', 'rate_limited'],
      flatErrors: true,
    },
    {
      method: 'post', path: '/oauth/register', id: 'registerOAuthClient', service: 'identity',
      summary: 'Register an OAuth client (deprecated dynamic registration, RFC 7591)',
      description: 'Public clients only: no secret is issued. Prefer a client metadata document (its https URL is the client_id). 20 registrations an hour per address; a deployment may switch registration off (403 `access_denied`). Registrations unused for 90 days are removed.',
      auth: ['none'],
      body: RegistrationRequest,
      responses: {
        201: {
          description: 'The registration as kept.',
          schema: z.object({
            client_id: z.string().meta({ description: '`dcr_…`' }),
            client_id_issued_at: z.int().meta({ description: 'Unix seconds.' }),
            client_name: z.string(),
            redirect_uris: z.array(z.string()),
            grant_types: z.array(z.enum(['authorization_code', 'refresh_token'])),
            response_types: z.array(z.literal('code')),
            token_endpoint_auth_method: z.literal('none'),
            client_uri: z.string().optional(),
            logo_uri: z.string().optional(),
            application_type: z.enum(['web', 'native']),
            software_id: z.string().optional(),
            note: z.string(),
          }),
        },
        400: flat400(['invalid_client_metadata', 'invalid_redirect_uri']),
      },
      errors: ['invalid_client_metadata', 'access_denied', 'rate_limited'],
      flatErrors: true,
    },
    {
      method: 'post', path: '/oauth/token', id: 'exchangeOAuthToken', service: 'identity',
      summary: 'Exchange an authorization code or a refresh token for a token pair',
      description: 'A form (or JSON); public clients send `client_id` and no secret. `authorization_code` with the PKCE verifier yields an RS256 access token for the resource (15 minutes) and a refresh token (30 days, sliding) of a new family; a code is single use, and a second use revokes what the first made. `refresh_token` rotates the family\'s refresh token; a rotated-out one presented again revokes the family. Answered `Cache-Control: no-store`.',
      auth: ['none'],
      body: TokenRequest,
      bodyType: 'application/x-www-form-urlencoded',
      responses: {
        200: {
          description: 'A new access and refresh token.',
          schema: z.object({
            access_token: z.string().meta({ description: 'A JWT (RS256): `aud` the resource, `sub` the token record, `act.sub` the person.' }),
            token_type: z.literal('Bearer'),
            expires_in: z.int().meta({ description: 'Seconds: 900.' }),
            refresh_token: z.string().meta({ description: '`ort_…`' }),
            refresh_expires_in: z.int().meta({ description: 'Seconds: 30 days.' }),
            scope: z.string().meta({ description: 'Space-separated.' }),
          }),
        },
        400: flat400(['invalid_request', 'invalid_grant', 'invalid_scope', 'invalid_target', 'unsupported_grant_type']),
        401: { description: 'Unknown client: `invalid_client` (the flat form)', schema: FlatOAuthError },
      },
      errors: ['invalid_request', 'invalid_grant', 'invalid_client', 'body_too_large'],
      flatErrors: true,
    },
    {
      method: 'post', path: '/oauth/revoke', id: 'revokeOAuthToken', service: 'identity',
      summary: 'Revoke a refresh or access token (RFC 7009)',
      description: 'A form (or JSON). A token of this service ends its whole authorization (every token of the family, at the next request); anything else changes nothing, and the answer is the same. Answered `Cache-Control: no-store`.',
      auth: ['none'],
      body: RevokeRequest,
      bodyType: 'application/x-www-form-urlencoded',
      responses: { 200: { description: 'Always an empty object.', schema: z.object({}) } },
      errors: ['invalid_request', 'body_too_large'],
      flatErrors: true,
    },

    // ---- The consent page's routes ----
    {
      method: 'get', path: '/v1/oauth/authorize/pending', id: 'getOAuthConsentRequest', service: 'identity',
      summary: 'Read a consent request (the consent page, in a login session)',
      description: 'The client, what it asks for in words, and the organisation\'s catalogs with the level the person can give. When an earlier allow bound a token record to this person and client in this organisation, it is shown (`existing`, `granted`): allowing again replaces its grants. Only a login session: an API key gets 403 `session_required`, a token 403 `forbidden`.',
      auth: ['session'],
      query: OAuthConsentLookupQuery,
      responses: {
        200: {
          description: 'The consent request.',
          schema: z.object({
            request_id: z.string(),
            expires_at: IsoTime,
            expires_in: z.int(),
            client: OAuthClientView,
            scopes: z.array(Scope),
            scope: z.string(),
            scope_descriptions: z.record(z.string(), z.string()).meta({ description: 'Each asked scope in words.' }),
            resource: z.string(),
            redirect_host: z.string(),
            person: z.object({ principal_id: Id, email: z.string().nullable() }),
            organization: Organization,
            warehouses: z.array(z.object({
              warehouse_id: Id,
              name: z.string(),
              my_level: HeldLevel,
              my_via: Via.nullable(),
              level: Level.meta({ description: 'Offered by default: the asked level capped by yours.' }),
              granted: Level.nullable().meta({ description: 'What the existing token record holds here.' }),
              default: z.boolean(),
            })),
            existing: z.object({ agent_id: Id, name: z.string(), role: Role, grants: z.array(GivenCatalog) }).nullable(),
            organizations: z.array(Organization),
            default_org_id: Id,
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'session_required', 'forbidden', 'oauth_request_not_found', 'oauth_request_expired', 'oauth_request_decided', 'org_required', 'org_not_found'],
    },
    {
      method: 'post', path: '/v1/oauth/authorize/decision', id: 'decideOAuthConsent', service: 'identity',
      summary: 'Allow or refuse a consent request (the consent page, in a login session)',
      description: 'Allow gives the client a token record of kind `mcp` holding exactly the catalogs chosen (each capped by the person\'s level; one held at nothing is refused), member role unless an admin asks otherwise; the record bound to this person and client is reused with its grants replaced. Then a single-use code valid 10 minutes. Refusing sends the client back with `error=access_denied`. Only a login session.',
      auth: ['session'],
      body: OAuthConsentDecisionBody,
      responses: {
        200: {
          description: 'The decision and where to send the browser.',
          schema: z.object({
            allowed: z.boolean(),
            redirect_to: z.string().meta({ description: 'The client\'s redirect URI with `code` (or `error=access_denied`), `state` and `iss`.' }),
            client: OAuthClientView,
            scope: z.array(z.string()),
            expires_in: z.int().nullable().meta({ description: 'The code\'s lifetime (600 s); null when refused.' }),
            token: z.object({
              agent_id: Id,
              name: z.string(),
              org_id: Id,
              role: Role,
              kind: z.literal('mcp'),
              grants: z.array(GivenCatalog),
              capped: z.array(z.object({ warehouse_id: Id, name: z.string(), asked: Level, level: Level, my_level: HeldLevel }))
                .meta({ description: 'The catalogs given at less than asked.' }),
              reused: z.boolean(),
              connection: AgentConnection,
            }).nullable().meta({ description: 'The token record; null when refused.' }),
            note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'missing_field', 'session_required', 'forbidden', 'insufficient_role', 'oauth_request_not_found', 'oauth_request_expired', 'oauth_request_decided', 'org_required', 'org_not_found', 'org_policy_forbids', 'warehouse_not_found', 'ambiguous_name', 'warehouse_deleting', 'warehouse_deleted'],
    },
  ]),
};
