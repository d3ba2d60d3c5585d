import type { FloeConfig } from '@floe/config';
import { HttpError } from '@floe/http';

// The control plane's two remaining internal routes, as identity calls them
// while it finishes a sign-up (the organisation's project and the `lake`
// catalog) and while a person approves a device or an OAuth client (their
// catalogs, one made when the organisation has none): both make catalogs,
// which the catalogs aggregate (packages/catalogs) cannot yet do in
// identity's process. Its refusals reach the caller as they were answered; a
// control plane that does not answer is 503.

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
