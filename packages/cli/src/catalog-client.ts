// The Iceberg REST catalog of a Floe deployment, as `floe rows` uses it: the
// client_credentials exchange of a catalog credential (POST /v1/oauth/tokens)
// and loading one table with a vended storage session. Refusals become
// ApiError like Floe's own, so they print and exit the same way: the catalog
// answers in the Iceberg error model {error:{message, type, code}}, whose
// exception type (NoSuchTableException, …) stands in for the code, and the
// token route in OAuth's flat {error, error_description}.
import type { TableMetadata as IcebirdTableMetadata } from 'icebird/src/types.js';
import { reasonOf, TIMEOUT_MS, USER_AGENT } from './api-client.js';
import { ApiError, envelopeOf, NetworkError, usageError, type Envelope } from './errors.js';

/** A table named as `namespace.table`; a namespace may have levels of its own (`a.b.table`). */
export interface TableName {
  namespace: string[];
  name: string;
}

/**
 * The Iceberg table metadata as JSON.parse reads it (ids past 2^53 rounded;
 * see `currentSnapshotId`): icebird's model, which reads it, with v1's lone
 * `schema`.
 */
export type TableMetadata = IcebirdTableMetadata & { schema?: { fields: Array<{ id: number; name: string; type: unknown }> } };

export interface LoadedTable {
  metadata: TableMetadata;
  /** The load result's `config`: the vended storage session (`s3.access-key-id`, `s3.endpoint`, …). */
  config: Record<string, string>;
  /** The current snapshot's id exactly as the catalog wrote it, or null when the table has none. */
  currentSnapshotId: string | null;
}

/** `a.b.table` → namespace [a, b], name `table`: the last dot ends the namespace. */
export function parseTableName(text: string): TableName {
  const parts = text.split('.');
  if (parts.length < 2 || parts.some((p) => p === '')) {
    throw usageError(`name the table as <namespace>.<table>, not ${JSON.stringify(text)}`);
  }
  return { namespace: parts.slice(0, -1), name: parts[parts.length - 1] };
}

export const tableNameText = (t: TableName) => [...t.namespace, t.name].join('.');

/**
 * The exact `current-snapshot-id` of a metadata text. JSON.parse would round
 * an id past 2^53 (Java writers mint 63-bit ids); the key appears once in a
 * metadata file, at its top level.
 */
export function currentSnapshotIdOf(metadataText: string): string | null {
  const m = /"current-snapshot-id"\s*:\s*(-?\d+)/.exec(metadataText);
  return m && m[1] !== '-1' ? m[1] : null;
}

export class CatalogClient {
  private readonly base: string;

  constructor(catalogUri: string, private readonly fetchImpl: typeof fetch = fetch) {
    this.base = catalogUri.replace(/\/+$/, '');
  }

  /** A catalog token for a catalog credential (client_credentials, form-encoded as engines send it). */
  async token(clientId: string, clientSecret: string): Promise<string> {
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: clientId, client_secret: clientSecret, scope: 'PRINCIPAL_ROLE:ALL' });
    const { body } = await this.call('POST', '/v1/oauth/tokens', { 'Content-Type': 'application/x-www-form-urlencoded' }, form.toString());
    const token = (body as { access_token?: unknown }).access_token;
    if (typeof token !== 'string') throw new ApiError(200, { code: 'unreadable_answer', message: 'the catalog answered the token exchange without an access_token' }, `${this.base}/v1/oauth/tokens`);
    return token;
  }

  /** GET /v1/{prefix}/namespaces/{ns}/tables/{name} with vended credentials; levels of a namespace are joined by U+001F. */
  async loadTable(token: string, prefix: string, table: TableName): Promise<LoadedTable> {
    const ns = encodeURIComponent(table.namespace.join('\u001f'));
    const path = `/v1/${encodeURIComponent(prefix)}/namespaces/${ns}/tables/${encodeURIComponent(table.name)}`;
    const { body, text } = await this.call('GET', path, { Authorization: `Bearer ${token}`, 'X-Iceberg-Access-Delegation': 'vended-credentials' });
    const loaded = body as { metadata?: TableMetadata; config?: Record<string, string> };
    if (!loaded.metadata || typeof loaded.metadata !== 'object') {
      throw new ApiError(200, { code: 'unreadable_answer', message: `the catalog loaded ${tableNameText(table)} without its metadata` }, `${this.base}${path}`);
    }
    return { metadata: loaded.metadata, config: loaded.config ?? {}, currentSnapshotId: currentSnapshotIdOf(text) };
  }

  private async call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<{ body: unknown; text: string }> {
    const url = `${this.base}${path}`;
    let res: Response;
    try {
      res = await this.fetchImpl(url, { method, headers: { Accept: 'application/json', 'User-Agent': USER_AGENT, ...headers }, body, signal: AbortSignal.timeout(TIMEOUT_MS) });
    } catch (err) {
      throw new NetworkError(url, reasonOf(err));
    }
    const text = await res.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: reported below with the status
    }
    if (res.ok && parsed !== null && typeof parsed === 'object') return { body: parsed, text };
    const envelope = icebergEnvelope(parsed) ?? envelopeOf(parsed) ?? {
      code: res.ok ? 'unreadable_answer' : `http_${res.status}`,
      message: `${method} ${url} answered HTTP ${res.status} without an error body${text ? `: ${text.slice(0, 120)}` : ''}`,
    };
    throw new ApiError(res.status, envelope, url);
  }
}

/** The Iceberg error model as an envelope: the exception type is the code (its `code` field is the HTTP status). */
export function icebergEnvelope(body: unknown): Envelope | null {
  const e = (body as { error?: unknown } | null)?.error as Record<string, unknown> | undefined;
  if (!e || typeof e !== 'object' || typeof e.type !== 'string') return null;
  const envelope: Envelope = { code: e.type, message: typeof e.message === 'string' ? e.message : e.type };
  if (typeof e.request_id === 'string') envelope.request_id = e.request_id;
  return envelope;
}
