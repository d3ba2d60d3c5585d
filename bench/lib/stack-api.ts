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

/** A catalog in a new project of the API key's organisation, and a catalog token of its read/write credential, as an engine mints one. */
export async function benchCatalog(state: Pick<StackState, 'catalog_url'>, api: StackApi, name: string): Promise<{ warehouseId: string; catalogToken: string }> {
  const project = await api('POST', '/v1/projects', { name: 'bench' });
  const w = await api('POST', '/v1/warehouses', { project_id: project.project_id, name });
  const credential = (await api('GET', `/v1/connection?warehouse=${w.warehouse_id}&level=write`)).catalog_credential;
  const minted = await request(`${state.catalog_url}/v1/oauth/tokens`, {
    method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: credential.client_id, client_secret: credential.client_secret }).toString(),
  });
  return { warehouseId: w.warehouse_id, catalogToken: ((await minted.body.json()) as { access_token: string }).access_token };
}
