import { publicWarehousesAt } from '@floe/catalogs';
import type { Db } from '@floe/db';
import { conflict, notFound } from '@floe/http';
import { warehouseBuckets } from '@floe/storage';
import { iso, publicUrlOf } from '../../responses';
import { currentTablePointers, type TablePointer } from '../../store/table-pointers';

// GET /v1/public/{handle}/{catalog}/connection, no credential. A public
// catalog's table bucket lets anyone GET its objects (POST …/public), but
// the catalog stays private, so an anonymous reader needs what the catalog
// would have told it: each table's current metadata file. The answer lists
// them and gives recipes that read them with no credential at all (DuckDB's
// iceberg_scan, PyIceberg's StaticTable). A private or unknown catalog is
// 404 `public_catalog_not_found` either way, so privacy leaks nothing. A
// catalog published under a files prefix lists only the tables whose metadata
// lies under it: the others an anonymous reader could not open anyway.

export interface PublicStore {
  /** The object store's public address ({s3_url}). */
  s3Url: string;
  region: string;
}

export async function publicConnection(db: Db, store: PublicStore, handle: string, catalog: string) {
  const owned = warehouseBuckets({ handle }, catalog.toLowerCase());
  const found = await publicWarehousesAt(db, handle, catalog, owned.ok ? owned.table : null);
  if (found.length === 0) {
    throw notFound('public_catalog_not_found', `no public catalog ${catalog} of ${handle}`, { handle, catalog });
  }
  if (found.length > 1) {
    throw conflict('public_catalog_ambiguous', `${found.length} public catalogs of ${handle} are named ${catalog}; read one by its bucket`, {
      candidates: found.map((w) => ({ warehouse_id: w.id, bucket: w.tableBucket, public_url: publicUrlOf(store, w) })),
    });
  }
  const w = found[0];
  const readable = `s3://${w.tableBucket}/${w.publicPrefix}`;
  const tables = (await currentTablePointers(db, w.id)).filter((t) => t.metadataLocation.startsWith(readable));
  return {
    handle,
    catalog: w.name,
    warehouse_id: w.id,
    public: true,
    public_since: iso(w.publicSince),
    bucket: w.tableBucket,
    public_url: publicUrlOf(store, w),
    files_prefix: w.publicPrefix,
    s3: { endpoint: store.s3Url, region: store.region, path_style: true, anonymous: true },
    count: tables.length,
    tables: tables.map((t) => ({
      table: [...t.namespace, t.name].join('.'),
      namespace: t.namespace,
      name: t.name,
      metadata_location: t.metadataLocation,
      metadata_url: httpUrlOf(store.s3Url, t.metadataLocation),
    })),
    recipe: { duckdb: duckdbRecipe(store, tables), pyiceberg: pyicebergRecipe(store, tables) },
    note: `Anonymous, read-only: every object ${w.publicPrefix ? `under ${w.publicPrefix} ` : ''}of the table bucket can be read without a credential; nothing can be written and the catalog itself stays private. `
      + 'Metadata locations are those current now; a commit makes a new one, so ask again for the newest.',
  };
}

/** `s3://bucket/key` as a path-style URL on the store's public address. */
const httpUrlOf = (s3Url: string, location: string) => `${s3Url}/${location.replace(/^s3:\/\//, '')}`;

function duckdbRecipe(store: PublicStore, tables: TablePointer[]): string {
  const endpoint = new URL(store.s3Url);
  return [
    'INSTALL httpfs; LOAD httpfs; INSTALL iceberg; LOAD iceberg;',
    '-- No key: DuckDB sends unsigned requests, which the public bucket answers.',
    'CREATE OR REPLACE SECRET floe_public (',
    `  TYPE S3, KEY_ID '', SECRET '', REGION '${store.region}',`,
    `  ENDPOINT '${endpoint.host}', URL_STYLE 'path', USE_SSL ${endpoint.protocol === 'https:'}`,
    ');',
    ...(tables.length
      ? tables.map((t) => `SELECT * FROM iceberg_scan('${t.metadataLocation}') LIMIT 10;  -- ${[...t.namespace, t.name].join('.')}`)
      : ['-- The catalog holds no table yet.']),
  ].join('\n');
}

function pyicebergRecipe(store: PublicStore, tables: TablePointer[]): string {
  return [
    'from pyiceberg.table import StaticTable',
    '',
    'props = {',
    `    "s3.endpoint": "${store.s3Url}",`,
    `    "s3.region": "${store.region}",`,
    '    "s3.path-style-access": "true",',
    '    "s3.anonymous": "true",',
    '}',
    ...(tables.length
      ? tables.flatMap((t) => [`t = StaticTable.from_metadata("${t.metadataLocation}", properties=props)  # ${[...t.namespace, t.name].join('.')}`, 'print(t.scan(limit=10).to_arrow())'])
      : ['# The catalog holds no table yet.']),
  ].join('\n');
}
