import { request } from 'undici';
import { cephInfo, ensureCeph, type CephInfo } from '../../scripts/lib/ceph';
import type { StackState } from '../../scripts/lib/stack';

// What benches share: the local object store, and a control-plane API caller through a private stack's
// gateway as one organisation's admin key, throwing on any answer ≥ 300.

export type StackApi = (method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown) => Promise<any>;

export function stackApi(state: Pick<StackState, 'base_url'>, apiKey: string): StackApi {
  const headers = { Authorization: `Bearer ${apiKey}`, 'Content-Type': 'application/json' };
  return async (method, path, body) => {
    const r = await request(`${state.base_url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await r.body.json()) as any;
    if (r.statusCode >= 300) throw new Error(`${method} ${path}: ${r.statusCode} ${JSON.stringify(json)}`);
    return json;
  };
}

/** The local Ceph RGW, started if needed, named to this process as the object store (FLOE_S3_*), as `npm test` does. */
export async function useLocalCeph(): Promise<CephInfo> {
  await ensureCeph();
  const ceph = cephInfo()!;
  Object.assign(process.env, {
    FLOE_S3_URL: ceph.endpoint, FLOE_S3_REGION: ceph.region, FLOE_S3_ADMIN_ACCESS_KEY: ceph.accessKey, FLOE_S3_ADMIN_SECRET_KEY: ceph.secretKey,
  });
  return ceph;
}
