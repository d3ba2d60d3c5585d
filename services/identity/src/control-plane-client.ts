import type { FloeConfig } from '@floe/config';
import { HttpError } from '@floe/http';

// The control plane's internal routes, as identity calls them while it signs
// a person up, approves a device or an OAuth client, or shows a consent: the
// control plane makes and reads what it owns (organisations, projects, the
// `lake` catalog, token records and their grants). Its refusals (a handle taken, say) reach the caller as
// they were answered; a control plane that does not answer is 503.

/** A POST with `body`, or a GET of `path` when there is none (the read routes). */
async function call<T>(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, path: string, body?: unknown): Promise<T> {
  let res: Response;
  try {
    res = await fetch(`${config.services.controlPlane}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), Authorization: `Bearer ${config.bootstrapSecret}` },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(60_000),
    });
  } catch {
    throw new HttpError(503, 'service_unavailable', 'the control plane is not answering; retry shortly', { retry_after_seconds: 2 }, { 'Retry-After': '2' });
  }
  const answer = (await res.json().catch(() => null)) as { error?: { code: string; message: string } & Record<string, unknown> } | null;
  if (res.ok) return answer as T;
  const e = answer?.error;
  if (e && res.status < 500) {
    const { code, message, request_id: _rid, ...extras } = e;
    // Relayed as answered: the control plane throws only registry codes.
    throw new HttpError<string>(res.status, code, message, extras);
  }
  throw new Error(`control plane ${path}: ${res.status} ${JSON.stringify(answer)}`);
}

export interface ReservedOrganization {
  org_id: string;
  name: string;
  handle: string;
  status: 'pending';
  /** False when the person had reserved it already. */
  created: boolean;
}

/**
 * A pending organisation holding its handle for the person signing up, for
 * `holdSeconds` (the life of the code or link mailed); `clientAddress` is the
 * sign-up's caller, whose unlapsed reservations the control plane caps (409
 * `limit_exceeded`).
 */
export function reserveOrganization(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>,
  r: { principalId: string; name: string; handle?: string; clientAddress: string; holdSeconds: number },
): Promise<ReservedOrganization> {
  return call(config, '/internal/orgs/reserve', {
    principal_id: r.principalId, name: r.name, handle: r.handle, client_address: r.clientAddress, hold_seconds: r.holdSeconds,
  });
}

/** Gives back a reservation this sign-up made (its code could not be sent). */
export async function releaseOrganization(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, r: { principalId: string; orgId: string }): Promise<void> {
  await call(config, '/internal/orgs/release', { principal_id: r.principalId, org_id: r.orgId });
}

export interface OnboardedAccount {
  organization: { org_id: string; name: string; handle: string; role: 'admin' | 'member'; joined_via: string };
  project_id: string | null;
  warehouse_id: string | null;
  created?: { organization: boolean; project: boolean; warehouse: boolean };
  connection: unknown;
}

/** The verified person's organisation, project and `lake`; idempotent for one person. */
export function onboardAccount(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, a: { principalId: string; email: string; workspace: string; pendingOrgId: string | null; engine: string },
): Promise<OnboardedAccount> {
  return call(config, '/internal/accounts/onboard', { principal_id: a.principalId, email: a.email, workspace: a.workspace, pending_org_id: a.pendingOrgId, engine: a.engine });
}

export interface LeftOrganizations {
  memberships_removed: number;
  grants_removed: number;
  organizations_left_empty: string[];
}

/** The person leaves every organisation (409 `last_admin` when one would be left without an admin). */
export function leaveOrganizations(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, principalId: string): Promise<LeftOrganizations> {
  return call(config, '/internal/accounts/leave', { principal_id: principalId });
}

export type DeviceLevel = 'read' | 'write';
type HeldLevel = DeviceLevel | 'none';

export interface HeldCatalog {
  warehouse_id: string;
  name: string;
  my_level: HeldLevel;
  my_via: string | null;
}

export interface DeviceCatalogs {
  organization: { org_id: string; name: string; handle: string; role: 'admin' | 'member' };
  /** Every catalog of the organisation the person holds read or write on. */
  warehouses: HeldCatalog[];
  /** The asked catalogs resolved (nothing asked: the default one), each with the level asked. */
  requested: Array<HeldCatalog & { level: DeviceLevel }>;
  created_catalog: { warehouse_id: string; name: string; project_id: string; status: string } | null;
  /** The catalog an approval would create first (the organisation has none), when not asked to create it now. */
  catalog_to_create: string | null;
}

/** The organisation a person approves a device login in, their catalogs and levels there, and the asked catalogs resolved. */
export function deviceCatalogs(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>,
  q: {
    principalId: string; orgId?: string; requested: Array<{ ref: string; level: DeviceLevel }>; requestedLevel: DeviceLevel; ensureCatalog: boolean;
    /** A decision being made: the organisation's policy may refuse it (403 org_policy_forbids). */
    decision?: 'device_login' | 'oauth_consent';
  },
): Promise<DeviceCatalogs> {
  return call(config, '/internal/device/catalogs', {
    principal_id: q.principalId, org_id: q.orgId, requested: q.requested, requested_level: q.requestedLevel, ensure_catalog: q.ensureCatalog, decision: q.decision,
  });
}

/** What identity reads of the control plane's answer (the agent's view, its key and the connection block). */
export interface CreatedAgent {
  agent_id: string;
  name: string;
  org_id: string;
  role: 'admin' | 'member';
  kind: 'agent' | 'mcp';
  grants: Array<{ warehouse_id: string; name: string; level: DeviceLevel }>;
  api_key: string;
  key_id: string;
  label: string;
  connection: Record<string, unknown>;
  reused: boolean;
}

/** An OAuth token record (kind mcp, no key): made, or the one `reuseAgentId` names with its grants and role replaced (`reused`). */
export type McpRecord = Omit<CreatedAgent, 'api_key' | 'key_id'> & { api_key: null; key_id: null };

/** An agent of the organisation with a first API key, made by `capBy` (the approver) and its grants capped again by their levels now (the control plane's POST /internal/agents). */
export function createAgent(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>,
  a: { orgId: string; name: string; label: string; capBy: string; grants: Array<{ warehouse_id: string; level: DeviceLevel }>; via: 'device'; sourceRef: string },
): Promise<CreatedAgent> {
  return call(config, '/internal/agents', {
    org_id: a.orgId, name: a.name, label: a.label, cap_by: a.capBy, grants: a.grants, via: a.via, source_ref: a.sourceRef,
  });
}

/** The token record an allowed OAuth consent gives a client (the control plane's POST /internal/agents with kind mcp, via oauth). */
export function createMcpRecord(
  config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>,
  a: { orgId: string; name: string; capBy: string; role: 'admin' | 'member'; grants: Array<{ warehouse_id: string; level: DeviceLevel }>; reuseAgentId?: string },
): Promise<McpRecord> {
  return call(config, '/internal/agents', {
    org_id: a.orgId, name: a.name, label: 'oauth', cap_by: a.capBy, grants: a.grants, via: 'oauth', kind: 'mcp', role: a.role, reuse_agent_id: a.reuseAgentId,
  });
}

/** A token record as the consent page shows it: what it holds now (`status: revoked` once revoked). */
export interface RecordHolding {
  agent_id: string;
  name: string;
  kind: 'agent' | 'mcp';
  role: 'admin' | 'member';
  status: 'active' | 'revoked';
  org_id: string;
  grants: Array<{ warehouse_id: string; name: string; level: DeviceLevel }>;
}

/** What a token record of the organisation holds (the control plane's GET /internal/agents/{agent_id}/grants); 404 `token_not_found` when it is not the organisation's. */
export function recordHolding(config: Pick<FloeConfig, 'services' | 'bootstrapSecret'>, r: { orgId: string; agentId: string }): Promise<RecordHolding> {
  return call(config, `/internal/agents/${encodeURIComponent(r.agentId)}/grants?${new URLSearchParams({ org_id: r.orgId })}`);
}
