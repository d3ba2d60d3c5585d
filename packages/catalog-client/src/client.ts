import { parseJson, stringifyJson, type Schema, type TableRequirement, type TableUpdate } from '@floe/iceberg';
import type { FloeConfig } from '@floe/config';
import { toLoadTableResult, type LoadTableResult } from './load-result';
import { tablePath, tablesPath, warehousePrefix, type TableIdent } from './paths';

// Floe's own deployables (the control plane's table routes, the roller) go
// through the Iceberg REST catalog as the warehouse's own identity, never
// around it: the catalog stays the one writer of table metadata. Tokens come
// from identity's internal route and are reused until shortly before they
// expire (or a rotate makes them refused).

/** A refusal by the catalog (or its absence): the HTTP status and the Iceberg error type. */
export class CatalogFailure extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
  }
}

interface CachedToken {
  token: string;
  until: number;
}

/** A JSON answer of the catalog, not yet given a type (see `request`). */
export type CatalogJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Asks a load to vend a storage session for the table's location. */
const VENDED = { 'X-Iceberg-Access-Delegation': 'vended-credentials' };

export class CatalogClient {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(private readonly config: FloeConfig) {}

  /** Loads a table; with `vend`, with a storage session for its location (`vendedCredentials`). */
  async loadTable(warehouseId: string, table: TableIdent, opts: { vend?: boolean } = {}): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'GET', tablePath(table), undefined, opts.vend ? VENDED : {}));
  }

  /** Commits changes to a table: 409 (a CatalogFailure) when a requirement no longer holds. `headers`: a commit gate holder says so (packages/db commit-gate.ts). */
  async commitTable(warehouseId: string, table: TableIdent, changes: { requirements: TableRequirement[]; updates: TableUpdate[] }, headers: Record<string, string> = {}): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'POST', tablePath(table), { requirements: changes.requirements, updates: changes.updates }, headers));
  }

  /** Creates a table in an existing namespace. */
  async createTable(warehouseId: string, namespace: string[], create: { name: string; schema: Schema; properties?: Record<string, string> }): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'POST', tablesPath(namespace), create));
  }

  /**
   * One request under the warehouse's prefix (`/v1/{warehouse_id}`), its JSON
   * answer untyped (null for 204): the control plane's routes that have no
   * typed method here yet. A refusal is a CatalogFailure.
   */
  async request(warehouseId: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<CatalogJson | null> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.token(warehouseId);
      let res: Response;
      try {
        res = await fetch(`${this.config.services.catalog}${warehousePrefix(warehouseId)}${path}`, {
          method,
          headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : stringifyJson(body),
          signal: AbortSignal.timeout(30_000),
        });
      } catch {
        throw new CatalogFailure(503, 'ServiceUnavailableException', 'the catalog is not answering');
      }
      // A rotate revokes the credential a cached token was minted for: mint again, once.
      if (res.status === 401 && attempt === 0) {
        this.tokens.delete(warehouseId);
        continue;
      }
      const text = await res.text();
      if (res.status === 204 || text === '') {
        if (res.ok) return null;
        throw new CatalogFailure(res.status, 'UnknownException', `the catalog answered ${res.status}`);
      }
      const parsed = parseJson(text) as CatalogJson;
      if (!res.ok) {
        const e = (parsed?.error ?? {}) as CatalogJson;
        throw new CatalogFailure(res.status, String(e.type ?? 'UnknownException'), String(e.message ?? `the catalog answered ${res.status}`));
      }
      return parsed;
    }
  }

  private async token(warehouseId: string): Promise<string> {
    const hit = this.tokens.get(warehouseId);
    if (hit && hit.until > Date.now()) return hit.token;
    const res = await fetch(`${this.config.services.identity}/internal/catalog-tokens/warehouse`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${this.config.bootstrapSecret}` },
      body: JSON.stringify({ warehouse_id: warehouseId }),
      signal: AbortSignal.timeout(10_000),
    }).catch(() => null);
    if (!res || !res.ok) throw new CatalogFailure(res?.status === 404 ? 404 : 503, 'NotAuthorizedException', 'no catalog token could be had for this warehouse');
    const body = (await res.json()) as { access_token: string; expires_in: number };
    // Renewed a minute early, so a request never carries a token that expires on the way.
    this.tokens.set(warehouseId, { token: body.access_token, until: Date.now() + (body.expires_in - 60) * 1000 });
    return body.access_token;
  }
}
