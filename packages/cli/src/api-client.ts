// Every HTTP call `floe` makes to Floe's API, and the shapes of the
// answers it reads (spec: device authorisation, GET /v1/warehouses,
// GET /v1/connection, GET /v1/orgs, GET and DELETE /v1/api-keys). One home
// per contract: commands never build a URL or read a status themselves (the
// Iceberg REST catalog's calls are catalog-client.ts's).
// Failures become ApiError (an error envelope) or NetworkError (no answer).
import { ApiError, envelopeOf, NetworkError } from './errors.js';
import { CLI_VERSION } from './version.js';

export const TIMEOUT_MS = 30_000;
export const USER_AGENT = `floe-cli/${CLI_VERSION} node/${process.versions.node}`;

export type Level = 'read' | 'write';

export interface CatalogRequest {
  name?: string;
  warehouse_id?: string;
  level?: Level;
}

export interface DeviceStart {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
  client_name?: string;
  requested_level?: Level;
  warehouses?: Array<{ warehouse_id?: string; name?: string; level?: string }>;
}

export interface GrantedCatalog {
  warehouse_id?: string;
  name?: string;
  level?: string;
}

export interface DeviceToken {
  api_key: string;
  key_id: string;
  label: string;
  principal_id: string;
  kind?: string;
  connection?: { agent_id?: string; name?: string; org_id?: string; role?: string; warehouses?: GrantedCatalog[] };
  note?: string;
}

/** One poll of the token route: the key, or the envelope's code (`authorization_pending`, `slow_down`, …). */
export type DevicePoll = { kind: 'token'; token: DeviceToken } | { kind: 'refused'; error: ApiError };

export interface WarehouseRow {
  name: string;
  warehouse_id: string;
  project: string | null;
  project_id: string | null;
  my_level: string;
  my_via: string | null;
  status: string;
}

export interface Organisation {
  org_id: string;
  name: string;
  handle: string;
  role: string;
  joined_via?: string;
}

export interface Connection {
  warehouse_id: string;
  warehouse: string;
  engine: string;
  level: string;
  recipe: string;
  /** The Iceberg REST catalog's address; its prefix for this catalog is `warehouse_id`. */
  catalog_uri: string;
  catalog_credential: { client_id: string; client_secret: string };
  note?: string;
  [more: string]: unknown;
}

export class FloeApi {
  constructor(readonly baseUrl: string, private readonly apiKey: string | null = null, private readonly fetchImpl: typeof fetch = fetch) {}

  /** POST /v1/auth/device (no credential). */
  startDevice(body: { client: 'cli'; hostname: string; client_name?: string; requested_level?: Level; warehouses?: CatalogRequest[] }): Promise<DeviceStart> {
    return this.call('POST', '/v1/auth/device', body, false);
  }

  /** POST /v1/auth/device/token (no credential). A 400 envelope is an answer here, not a failure. */
  async pollDevice(deviceCode: string): Promise<DevicePoll> {
    try {
      return { kind: 'token', token: await this.call<DeviceToken>('POST', '/v1/auth/device/token', { device_code: deviceCode }, false) };
    } catch (err) {
      if (err instanceof ApiError && err.status < 500 && err.status !== 429) return { kind: 'refused', error: err };
      throw err;
    }
  }

  async warehouses(): Promise<WarehouseRow[]> {
    return (await this.call<{ warehouses: WarehouseRow[] }>('GET', '/v1/warehouses')).warehouses;
  }

  connection(warehouse: string, engine?: string, level?: Level): Promise<Connection> {
    const q = new URLSearchParams({ warehouse });
    if (engine) q.set('engine', engine);
    if (level) q.set('level', level);
    return this.call('GET', `/v1/connection?${q}`);
  }

  async orgs(): Promise<Organisation[]> {
    return (await this.call<{ organizations: Organisation[] }>('GET', '/v1/orgs')).organizations;
  }

  /** GET /v1/api-keys: the caller's principal and its keys (never secrets). */
  keys(): Promise<{ principal_id: string; keys: Array<{ key_id: string; label: string; status: string }> }> {
    return this.call('GET', '/v1/api-keys');
  }

  /** DELETE /v1/api-keys/{key_id}, authenticated with this client's key. */
  revokeKey(keyId: string): Promise<{ revoked: boolean; already_revoked?: boolean }> {
    return this.call('DELETE', `/v1/api-keys/${encodeURIComponent(keyId)}`);
  }

  private async call<T>(method: string, path: string, body?: unknown, authed = true): Promise<T> {
    const url = `${this.baseUrl}${path}`;
    const headers: Record<string, string> = { Accept: 'application/json', 'User-Agent': USER_AGENT };
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    if (authed && this.apiKey) headers.Authorization = `Bearer ${this.apiKey}`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new NetworkError(`${this.baseUrl}${path.split('?')[0]}`, reasonOf(err));
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: reported below with the status
    }
    if (res.ok && parsed !== null) return parsed as T;
    const envelope = envelopeOf(parsed) ?? {
      code: res.ok ? 'unreadable_answer' : `http_${res.status}`,
      message: `${method} ${url} answered HTTP ${res.status} without a Floe error body${text ? `: ${text.slice(0, 120)}` : ''}`,
    };
    throw new ApiError(res.status, envelope, url);
  }
}

/** fetch wraps the real cause (ECONNREFUSED, ENOTFOUND, a timeout) in `cause`. */
export function reasonOf(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${TIMEOUT_MS / 1000} s`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
