import { parseJson, stringifyJson, type JsonValue } from '@floe/iceberg';
import type { FloeConfig } from '@floe/config';

// Floe's own deployables (the control plane's table routes, the roller) go
// through the Iceberg REST catalog as the warehouse's own identity, never
// around it: the catalog stays the one writer of table metadata. Tokens come
// from identity's internal route and are reused until shortly before they
// expire (or a rotate makes them refused).

export class CatalogFailure extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
  }
}

interface CachedToken {
  token: string;
  until: number;
}

type Json = Record<string, any>;

export class CatalogClient {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(private readonly config: FloeConfig) {}

  async request(warehouseId: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Json | null> {
    for (let attempt = 0; ; attempt++) {
      const token = await this.token(warehouseId);
      let res: Response;
      try {
        res = await fetch(`${this.config.services.catalog}/v1/${encodeURIComponent(warehouseId)}${path}`, {
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
      const parsed = parseJson(text) as Json;
      if (!res.ok) {
        const e = (parsed?.error ?? {}) as Json;
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
