import { Replicas, fetchReplica } from '@floe/http';
import { refusalFrom } from './service-refusal';

// The control plane as the tools see it: every call carries the caller's own
// access token, so the control plane's level checks (the token record's
// grants, capped at read by a `catalogs:read` scope) decide what a tool may
// see or do. The tool server holds no credential of its own for it.

export interface CallOptions {
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** The tool call's request id, so both services log one id. */
  requestId: string;
}

export class ControlPlaneClient {
  private readonly replicas: Replicas;

  /** `targets`: the control plane's replicas (config.upstreams.controlPlane). */
  constructor(targets: string | string[]) {
    this.replicas = new Replicas(targets);
  }

  get<T>(token: string, path: string, o: CallOptions): Promise<T> {
    return this.call<T>('GET', token, path, o);
  }

  post<T>(token: string, path: string, o: CallOptions): Promise<T> {
    return this.call<T>('POST', token, path, o);
  }

  private async call<T>(method: string, token: string, path: string, o: CallOptions): Promise<T> {
    const query = new URLSearchParams();
    for (const [k, v] of Object.entries(o.query ?? {})) if (v !== undefined) query.set(k, String(v));
    const res = await fetchReplica(this.replicas, query.size ? `${path}?${query}` : path, {
      method,
      headers: {
        Authorization: `Bearer ${token}`,
        'X-Request-Id': o.requestId,
        ...(o.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: o.body === undefined ? undefined : JSON.stringify(o.body),
      signal: AbortSignal.timeout(60_000),
    });
    if (!res.ok) throw await refusalFrom(res, 'control plane');
    return (await res.json()) as T;
  }
}
