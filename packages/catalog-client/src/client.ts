import { parseJson, stringifyJson, type Schema, type TableRequirement, type TableUpdate } from '@floe/iceberg';
import type { FloeConfig } from '@floe/config';
import { toLoadTableResult, type LoadTableResult } from './load-result';
import { namespacePath, namespacesPath, tablePath, tablesPath, warehousePrefix, type TableIdent } from './paths';
import { toCreateNamespaceResponse, toListNamespacesResponse, toListTablesResponse, type CreateNamespaceResponse } from './responses';

// Floe's own deployables (the control plane's table routes, the roller, the
// maintenance worker) go through the Iceberg REST catalog as the warehouse's
// own identity, never around it: the catalog stays the one writer of table
// metadata. Every operation they use is a typed method here, its path built by
// paths.ts. Tokens are minted in process by the deployable's token source
// (packages/catalogs' warehouseCatalogToken) and reused until shortly before
// they expire (or a rotate makes them refused).

/** A refusal by the catalog (or its absence): the HTTP status and the Iceberg error type. */
export class CatalogFailure extends Error {
  constructor(readonly status: number, readonly type: string, message: string) {
    super(message);
  }
}

/** Where the catalog answers. */
export interface CatalogClientConfig {
  services: Pick<FloeConfig['services'], 'catalog'>;
}

/** A token to act as the warehouse itself (its current read/write credential); null when it has none (deleted, or never finished). */
export type WarehouseTokenSource = (warehouseId: string) => Promise<{ access_token: string; expires_in: number } | null>;

interface CachedToken {
  token: string;
  until: number;
}

/** A JSON answer of the catalog, read before it is given a type (an error's body). */
type CatalogJson = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Asks a load to vend a storage session for the table's location. */
const VENDED = { 'X-Iceberg-Access-Delegation': 'vended-credentials' };

export class CatalogClient {
  private readonly tokens = new Map<string, CachedToken>();

  constructor(private readonly config: CatalogClientConfig, private readonly mint: WarehouseTokenSource) {}

  /** Whether a namespace exists: false for the catalog's 404, any other refusal thrown. */
  async namespaceExists(warehouseId: string, namespace: string[]): Promise<boolean> {
    try {
      await this.request(warehouseId, 'HEAD', namespacePath(namespace));
      return true;
    } catch (err) {
      if (err instanceof CatalogFailure && err.status === 404) return false;
      throw err;
    }
  }

  /** Creates a namespace (its parent must exist): 409 (a CatalogFailure) when it exists already. */
  async createNamespace(warehouseId: string, namespace: string[], properties: Record<string, string> = {}): Promise<CreateNamespaceResponse> {
    return toCreateNamespaceResponse(await this.request(warehouseId, 'POST', namespacesPath(), { namespace, properties }));
  }

  /** The namespaces directly under `parent` (the top level when empty), every page of them. */
  async listNamespaces(warehouseId: string, parent: string[] = []): Promise<string[][]> {
    const pages = await this.everyPage(warehouseId, (pageToken) => namespacesPath({ parent, pageToken }), toListNamespacesResponse);
    return pages.flatMap((page) => page.namespaces ?? []);
  }

  /** The tables of one namespace, every page of them. */
  async listTables(warehouseId: string, namespace: string[]): Promise<TableIdent[]> {
    const pages = await this.everyPage(warehouseId, (pageToken) => tablesPath(namespace, { pageToken }), toListTablesResponse);
    return pages.flatMap((page) => page.identifiers ?? []);
  }

  /** Loads a table; with `vend`, with a storage session for its location (`vendedCredentials`). */
  async loadTable(warehouseId: string, table: TableIdent, opts: { vend?: boolean } = {}): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'GET', tablePath(table), undefined, opts.vend ? VENDED : {}));
  }

  /** Commits changes to a table: 409 (a CatalogFailure) when a requirement no longer holds. `headers`: a commit gate holder says so (packages/db commit-gate.ts). */
  async commitTable(warehouseId: string, table: TableIdent, changes: { requirements: TableRequirement[]; updates: TableUpdate[] }, headers: Record<string, string> = {}): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'POST', tablePath(table), { requirements: changes.requirements, updates: changes.updates }, headers));
  }

  /** Creates a table in an existing namespace (NoSuchNamespaceException otherwise). */
  async createTable(warehouseId: string, namespace: string[], create: { name: string; schema: Schema; properties?: Record<string, string> }): Promise<LoadTableResult> {
    return toLoadTableResult(await this.request(warehouseId, 'POST', tablesPath(namespace), create));
  }

  /** Drops a table; with `purge`, the catalog also deletes the files it owned (purgeRequested). */
  async dropTable(warehouseId: string, table: TableIdent, opts: { purge?: boolean } = {}): Promise<void> {
    await this.request(warehouseId, 'DELETE', tablePath(table, { purgeRequested: opts.purge }));
  }

  /** Drops an empty namespace (NamespaceNotEmptyException otherwise). */
  async dropNamespace(warehouseId: string, namespace: string[]): Promise<void> {
    await this.request(warehouseId, 'DELETE', namespacePath(namespace));
  }

  /** Follows a listing's `next-page-token` from the first page (asked for without one) to the last. */
  private async everyPage<Page extends { 'next-page-token'?: string | null }>(
    warehouseId: string, pathOf: (pageToken: string | undefined) => string, parse: (json: unknown) => Page,
  ): Promise<Page[]> {
    const pages: Page[] = [];
    let pageToken: string | undefined;
    do {
      const page = parse(await this.request(warehouseId, 'GET', pathOf(pageToken)));
      pages.push(page);
      pageToken = page['next-page-token'] ?? undefined;
    } while (pageToken);
    return pages;
  }

  /**
   * One request under the warehouse's prefix (`/v1/{warehouse_id}`): its JSON
   * answer (null for 204), for the method that asked to give it a type. A
   * refusal is a CatalogFailure.
   */
  private async request(warehouseId: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<unknown> {
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
    const body = await this.mint(warehouseId).catch(() => {
      throw new CatalogFailure(503, 'NotAuthorizedException', 'no catalog token could be had for this warehouse');
    });
    if (!body) throw new CatalogFailure(404, 'NotAuthorizedException', 'this warehouse has no live read/write credential');
    // Renewed a minute early, so a request never carries a token that expires on the way.
    this.tokens.set(warehouseId, { token: body.access_token, until: Date.now() + (body.expires_in - 60) * 1000 });
    return body.access_token;
  }
}
