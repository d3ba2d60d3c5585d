// Reading a table's rows the way an engine does, with nothing but Node:
// Floe's read-only connection (GET /v1/connection level=read) → a catalog
// token → the table loaded with a vended storage session → its current
// snapshot read by icebird (Parquet data files, position and equality deletes
// applied), every object request signed with that session (SigV4, aws4fetch).
// The read-only credential is used whatever the caller holds: reading never
// needs more, and a vended read session cannot write by accident.
import { AwsClient } from 'aws4fetch';
import { icebergManifests, icebergRead } from 'icebird';
import { splitManifestEntries } from 'icebird/src/manifest.js';
import { reasonOf, type FloeApi } from './api-client.js';
import { CatalogClient, tableNameText, type LoadedTable, type TableMetadata, type TableName } from './catalog-client.js';
import { CliError, NetworkError } from './errors.js';
import { storeRefusal } from './store-errors.js';

export const DEFAULT_LIMIT = 20;
export const MAX_LIMIT = 10_000;
/** One object request; a Parquet read is many small range requests. */
const OBJECT_TIMEOUT_MS = 60_000;

export interface Column {
  id: number;
  name: string;
  /** An Iceberg type: a primitive's name (`long`, `decimal(10,2)`) or a struct, list or map object. */
  type: unknown;
}

export interface TableRows {
  table: string;
  columns: Column[];
  /** At most `limit` rows, in storage order, keyed by column name. */
  rows: Array<Record<string, unknown>>;
  /** The rows of the snapshot (deletes applied); 0 without one. */
  total: number;
  /** Exact, as the catalog wrote it; null when the table has no snapshot yet. */
  snapshotId: string | null;
}

/** The whole read for `floe rows`: Floe's connection, the catalog, then the store. */
export async function readTableRows(api: FloeApi, catalog: string, table: TableName, limit: number): Promise<TableRows> {
  const c = await api.connection(catalog, 'duckdb', 'read');
  const catalogApi = new CatalogClient(c.catalog_uri);
  const token = await catalogApi.token(c.catalog_credential.client_id, c.catalog_credential.client_secret);
  return readSnapshotRows(await catalogApi.loadTable(token, c.warehouse_id, table), tableNameText(table), limit);
}

/** The first `limit` rows of a loaded table's current snapshot and how many it holds. */
export async function readSnapshotRows(loaded: LoadedTable, table: string, limit: number, fetchImpl: typeof fetch = globalThis.fetch): Promise<TableRows> {
  const { metadata, currentSnapshotId } = loaded;
  const columns = currentColumns(metadata);
  if (currentSnapshotId === null) return { table, columns, rows: [], total: 0, snapshotId: null };
  return withFetch(storeFetch(loaded.config, fetchImpl), async () => {
    const { dataEntries, deleteEntries } = splitManifestEntries(await icebergManifests(metadata));
    const unreadable = [...dataEntries, ...deleteEntries].find((e) => String(e.data_file.file_format).toLowerCase() !== 'parquet');
    if (unreadable) {
      throw new CliError(`${table} holds ${String(unreadable.data_file.file_format)} files (${unreadable.data_file.file_path}), which floe rows cannot read`, undefined,
        'Read it with an engine: `floe connect <catalog>` prints a recipe.');
    }
    const stored = dataEntries.reduce((n, e) => n + Number(e.data_file.record_count), 0);
    // icebird fails on a snapshot with no data file; an emptied table is simply empty.
    if (stored === 0) return { table, columns, rows: [], total: 0, snapshotId: currentSnapshotId };
    const read = (rowEnd?: number) => icebergRead({ tableUrl: metadata.location, metadata, rowEnd });
    if (deleteEntries.length === 0) {
      // No deletes: the count is the data files' and only the first rows are fetched.
      return { table, columns, rows: await read(Math.min(limit, stored)), total: stored, snapshotId: currentSnapshotId };
    }
    // Deletes change the count and icebird applies them after cutting its row range, so the snapshot is read whole.
    const all = await read();
    return { table, columns, rows: all.slice(0, limit), total: all.length, snapshotId: currentSnapshotId };
  });
}

/** The current schema's top-level fields (v1 metadata may carry a lone `schema`). */
export function currentColumns(metadata: TableMetadata): Column[] {
  const schemas = (metadata.schemas ?? []) as Array<{ 'schema-id'?: number; fields: Column[] }>;
  const schema = schemas.find((s) => s['schema-id'] === metadata['current-schema-id']) ?? metadata.schema;
  if (!schema?.fields) throw new CliError('the table metadata has no current schema');
  return schema.fields.map((f: Column) => ({ id: f.id, name: f.name, type: f.type }));
}

/**
 * A fetch for icebird's object requests. icebird turns `s3://bucket/key` into
 * `https://bucket.s3.amazonaws.com/key`; those go path-style to the vended
 * endpoint, signed with the vended session. Anything else passes untouched
 * (and unsigned). A refusal fails with the store's own code, not as a
 * half-parsed file.
 */
export function storeFetch(config: Record<string, string>, realFetch: typeof fetch): typeof fetch {
  const accessKeyId = config['s3.access-key-id'];
  const secretAccessKey = config['s3.secret-access-key'];
  if (!accessKeyId || !secretAccessKey) throw new CliError('the catalog vended no storage credentials for this table');
  const region = config['s3.region'] ?? config['client.region'] ?? 'us-east-1';
  const endpoint = (config['s3.endpoint'] ?? `https://s3.${region}.amazonaws.com`).replace(/\/+$/, '');
  const signer = new AwsClient({ accessKeyId, secretAccessKey, sessionToken: config['s3.session-token'], service: 's3', region });
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = input instanceof Request ? input.url : String(input);
    const m = /^https:\/\/(.+?)\.s3\.amazonaws\.com(\/.*)$/.exec(url);
    if (!m) return realFetch(input, init);
    const target = `${endpoint}/${m[1]}${m[2]}`;
    const signed = await signer.sign(target, { ...init, signal: init?.signal ?? AbortSignal.timeout(OBJECT_TIMEOUT_MS) });
    let res: Response;
    try {
      res = await realFetch(signed);
    } catch (err) {
      throw new NetworkError(target, reasonOf(err));
    }
    if (!res.ok) throw await storeRefusal(res, `reading ${m[1]}${m[2]}`, { 403: 'The vended storage session lasts 15 minutes; run the command again for a new one.' });
    return res;
  }) as typeof fetch;
}

/**
 * Runs `body` with `f` standing in for the global fetch: icebird 0.3.1 fetches
 * manifests with the global fetch and passes no request options there, so
 * this is the one place its requests can be signed. A command runs alone in
 * its process, and the real fetch is back before anything else calls it.
 */
async function withFetch<T>(f: typeof fetch, body: () => Promise<T>): Promise<T> {
  const saved = globalThis.fetch;
  globalThis.fetch = f;
  try {
    return await body();
  } finally {
    globalThis.fetch = saved;
  }
}
