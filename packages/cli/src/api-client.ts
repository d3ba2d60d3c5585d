// Every HTTP call `floe` makes to Floe's API goes through one openapi-fetch
// client typed by the API document (docs/openapi.json, turned into
// api-schema.ts by `npm run docs:openapi`): paths, parameters, bodies and
// answers are the document's, so a change of the API that the CLI's use of it
// does not survive fails to compile here, not in a user's terminal. Commands
// call `ok(api.http.GET(...))`; they never build a URL or read a status
// themselves (the Iceberg REST catalog's calls are catalog-client.ts's).
// Failures become ApiError (an error envelope) or NetworkError (no answer).
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './api-schema.js';
import { ApiError, envelopeOf, NetworkError } from './errors.js';
import { CLI_VERSION } from './version.js';

export const TIMEOUT_MS = 30_000;
export const USER_AGENT = `floe-cli/${CLI_VERSION} node/${process.versions.node}`;

export type Level = 'read' | 'write';
export type FloeHttp = Client<paths>;

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON a route answers with `status`, as the document gives it. */
export type Answer<P extends keyof paths, M extends Method, S extends number = 200> =
  paths[P][M] extends { responses: infer R } ? (S extends keyof R ? JsonOf<R[S]> : never) : never;
/** The query a route takes. */
export type QueryOf<P extends keyof paths, M extends Method> =
  paths[P][M] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
/** The JSON body a route takes. */
export type BodyOf<P extends keyof paths, M extends Method> =
  paths[P][M] extends { requestBody?: infer B } ? JsonOf<NonNullable<B>> : never;

export type CatalogRequest = NonNullable<BodyOf<'/v1/auth/device', 'post'>['warehouses']>[number];
export type DeviceStart = Answer<'/v1/auth/device', 'post'>;
export type DeviceToken = Answer<'/v1/auth/device/token', 'post'>;

/** One poll of the token route: the key, or the envelope's code (`authorization_pending`, `slow_down`, …). */
export type DevicePoll = { kind: 'token'; token: DeviceToken } | { kind: 'refused'; error: ApiError };

/** A live catalog's row (the list holds deleted ones only when asked with `include_deleted`). */
export type WarehouseRow = Extract<Answer<'/v1/warehouses', 'get'>['warehouses'][number], { my_level: unknown }>;
export type Organisation = Answer<'/v1/orgs', 'get'>['organizations'][number];
export type Connection = Answer<'/v1/connection', 'get'>;
export type Engine = NonNullable<QueryOf<'/v1/connection', 'get'>['engine']>;
export const ENGINES: readonly Engine[] = ['duckdb', 'pyiceberg', 'spark', 'snowflake'];

/** What openapi-fetch answers for one call, as far as `ok` reads it. */
interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's body on success; the route's error envelope (or a made-up one for a body that is none) as ApiError otherwise. */
export async function ok<T>(pending: Promise<Outcome<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok && data !== undefined) return data;
  const envelope = envelopeOf(error) ?? {
    code: response.ok ? 'unreadable_answer' : `http_${response.status}`,
    message: `${response.url} answered HTTP ${response.status} without a Floe error body${typeof error === 'string' && error ? `: ${error.slice(0, 120)}` : ''}`,
  };
  throw new ApiError(response.status, envelope, response.url.split('?')[0]);
}

export interface ApiOptions {
  /** How long one call may take before it is abandoned (uploads take more). */
  timeoutMs?: number;
  fetchImpl?: typeof fetch;
}

export class FloeApi {
  /** The typed client: `ok(api.http.GET('/v1/warehouses/{warehouse_id}', { params: { path: { warehouse_id } } }))`. */
  readonly http: FloeHttp;

  constructor(readonly baseUrl: string, readonly apiKey: string | null = null, opts: ApiOptions = {}) {
    const fetchImpl = opts.fetchImpl ?? fetch;
    const timeoutMs = opts.timeoutMs ?? TIMEOUT_MS;
    this.http = createClient<paths>({
      baseUrl,
      headers: { 'User-Agent': USER_AGENT, Accept: 'application/json', ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}) },
      fetch: async (request: Request) => {
        try {
          return await fetchImpl(new Request(request, { signal: AbortSignal.timeout(timeoutMs) }));
        } catch (err) {
          throw new NetworkError(request.url.split('?')[0], reasonOf(err, timeoutMs));
        }
      },
    });
  }

  /** The same Floe with another credential (a sink's send key, no key at all). */
  as(apiKey: string | null, opts: ApiOptions = {}): FloeApi {
    return new FloeApi(this.baseUrl, apiKey, opts);
  }

  /** POST /v1/auth/device (no credential). */
  startDevice(body: BodyOf<'/v1/auth/device', 'post'>): Promise<DeviceStart> {
    return ok(this.http.POST('/v1/auth/device', { body }));
  }

  /** POST /v1/auth/device/token (no credential). A 4xx envelope is an answer here, not a failure. */
  async pollDevice(deviceCode: string): Promise<DevicePoll> {
    try {
      return { kind: 'token', token: await ok(this.http.POST('/v1/auth/device/token', { body: { device_code: deviceCode } })) };
    } catch (err) {
      if (err instanceof ApiError && err.status < 500 && err.status !== 429) return { kind: 'refused', error: err };
      throw err;
    }
  }

  async warehouses(): Promise<WarehouseRow[]> {
    return (await ok(this.http.GET('/v1/warehouses'))).warehouses as WarehouseRow[];
  }

  connection(warehouse: string, engine?: Engine, level?: Level): Promise<Connection> {
    return ok(this.http.GET('/v1/connection', { params: { query: { warehouse, ...(engine ? { engine } : {}), ...(level ? { level } : {}) } } }));
  }

  async orgs(): Promise<Organisation[]> {
    return (await ok(this.http.GET('/v1/orgs'))).organizations;
  }

  /** GET /v1/api-keys: the caller's principal and its keys (never secrets). */
  keys(): Promise<Answer<'/v1/api-keys', 'get'>> {
    return ok(this.http.GET('/v1/api-keys'));
  }

  /** DELETE /v1/api-keys/{key_id}, authenticated with this client's key. */
  revokeKey(keyId: string): Promise<Answer<'/v1/api-keys/{key_id}', 'delete'>> {
    return ok(this.http.DELETE('/v1/api-keys/{key_id}', { params: { path: { key_id: keyId } } }));
  }
}

/** fetch wraps the real cause (ECONNREFUSED, ENOTFOUND, a timeout) in `cause`. */
export function reasonOf(err: unknown, timeoutMs = TIMEOUT_MS): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e?.name === 'TimeoutError') return `no answer within ${timeoutMs / 1000} s`;
  return e?.cause?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}
