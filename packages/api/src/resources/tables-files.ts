import { z } from 'zod';
import type { ErrorCode } from '@floe/http/error-codes';
import { operations, type Auth } from '../operation';
import { IsoTime, Id } from '../shapes';

// Spec: Tables, credentials, connection (the table routes through the
// control plane, as the warehouse's own identity in the Iceberg REST
// catalog), table maintenance (Floe's shapes), the blob bucket's files and
// uploaders (write-only blob credentials), the object read (Floe's shape);
// and the spec routes about tables and files that later issues build
// (indexes).

// ---------------------------------------------------------------------------
// Request schemas the control plane parses with (services/control-plane/src/routes).

/**
 * A create's Iceberg schema as far as POST /v1/tables reads it (the v3 and
 * geometry checks walk its fields); what the types mean is the catalog's to
 * judge, and an unknown type comes back as its catalog_error.
 */
export const NewTableSchema = z.looseObject({
  type: z.literal('struct'),
  fields: z.array(z.looseObject({
    id: z.number().int(),
    name: z.string(),
    required: z.boolean(),
    type: z.union([z.string(), z.looseObject({})]),
  })),
});

/** POST /v1/tables, after the route maps the alias `warehouse` onto `warehouse_id`. */
export const CreateTableBody = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1).max(255),
  name: z.string().min(1).max(255),
  schema: NewTableSchema,
  format_version: z.unknown().optional(),
});

/** One table: GET /v1/table's query, PATCH and DELETE /v1/table, POST /v1/credentials (after the `warehouse` alias is mapped). */
export const TableRefFields = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1),
  name: z.string().min(1),
});

/** One namespace: DELETE /v1/namespace (after the `warehouse` alias is mapped). */
export const NamespaceRefFields = z.object({ warehouse_id: z.string().min(1), namespace: z.string().min(1) });

/**
 * The kinds of maintenance run, in the order a run does them: the queue's
 * own list (packages/queues MAINTENANCE_KINDS), which this package cannot
 * import; the maintenance route holds the two equal at compile time.
 */
export const TableMaintenanceKind = z.enum(['compact', 'rewrite_manifests', 'expire_snapshots', 'clean_metadata', 'remove_orphans']);

/** GET /v1/table/maintenance's query (after the `warehouse` alias is mapped). */
export const TableMaintenanceQuery = z.object({ warehouse_id: z.string().min(1), namespace: z.string().min(1), name: z.string().min(1) });

/** POST /v1/table/maintenance (after the `warehouse` alias is mapped). */
export const TableMaintenanceBody = z.object({
  warehouse_id: z.string().min(1),
  namespace: z.string().min(1),
  name: z.string().min(1),
  kinds: z.array(TableMaintenanceKind).max(10).optional(),
  dry_run: z.boolean().optional(),
});

/** POST /v1/warehouses/{warehouse_id}/uploaders (the name's and prefix's grammar is checked after parsing). */
export const CreateUploaderBody = z.object({
  name: z.string(),
  prefix: z.string().optional(),
  list: z.boolean().default(false),
  expires_at: z.string().datetime({ offset: true }).nullable().default(null),
});

// ---------------------------------------------------------------------------
// The document's request shapes: what the routes accept, the `warehouse`
// alias included (the schemas above see the request after it is mapped).

const CREDENTIAL: Auth[] = ['api_key', 'session', 'oauth'];

const catalogChoice = {
  warehouse_id: z.string().min(1).optional().meta({ description: 'The catalog: its id or its name. Required unless `warehouse` is given.' }),
  warehouse: z.string().min(1).optional().meta({ description: 'Alias of `warehouse_id` (id or name), read when `warehouse_id` is absent.' }),
};
const NamespaceName = z.string().min(1).meta({ description: 'A namespace, its levels joined with `.`', example: 'sales' });
const TableName = z.string().min(1).meta({ description: 'The table\'s name within the namespace', example: 'orders' });

const TableQueryDoc = z.object({ ...catalogChoice, namespace: NamespaceName, name: TableName });

const IcebergSchemaDoc = z.record(z.string(), z.unknown()).meta({
  description: 'An Iceberg struct schema as JSON (`{"type": "struct", "fields": [{id, name, required, type}, …]}`); the catalog judges the types.',
});

const CreateTableDoc = z.object({
  ...catalogChoice,
  namespace: NamespaceName.max(255).meta({ description: 'The namespace, levels joined with `.`; created on demand.' }),
  name: TableName.max(255),
  schema: IcebergSchemaDoc,
  format_version: z.union([z.literal(2), z.literal(3)]).nullable().optional().meta({ description: 'The table format version; absent or null: the catalog\'s `default_format_version`.' }),
});

const PropertyValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const PatchTableDoc = z.object({
  ...catalogChoice,
  namespace: NamespaceName,
  name: TableName,
  properties: z.record(z.string(), PropertyValue).optional().meta({
    description: 'Properties to set. Keys are 1-128 letters, digits, `.`, `_`, `-` (`format-version` is reserved); values are stored as strings (numbers and booleans stringified, nested objects refused, at most 32768 characters).',
  }),
  remove: z.array(z.string()).optional().meta({ description: 'Property keys to remove. At least one of `properties` and `remove` must be non-empty.' }),
});

const MaintenanceAskDoc = z.object({
  ...catalogChoice,
  namespace: NamespaceName,
  name: TableName,
  kinds: z.array(TableMaintenanceKind).max(10).optional().meta({ description: 'The kinds to run (each once, in the run\'s order); absent or empty: every kind.' }),
  dry_run: z.boolean().optional().meta({ description: '`true`: plan the run on the table as it is now and answer what it would do, changing nothing.' }),
});

const CreateUploaderDoc = z.object({
  name: z.string().meta({ description: '1-64 letters, digits, `.`, `_` and `-`, beginning with a letter or digit; unique among the catalog\'s active uploaders.', example: 'camera-1' }),
  prefix: z.string().optional().meta({ description: 'Where the key may write: 1-256 letters, digits, `/` and `!_.\'()-`, no leading `/`, no `.`, `..` or empty segment, not reaching `_sink/`. Default `<name>/`.' }),
  list: z.boolean().default(false).meta({ description: 'Also allow listing the blob bucket under the prefix.' }),
  expires_at: z.iso.datetime({ offset: true }).nullable().default(null).meta({ description: 'When the key stops working (in the future); null: never.' }),
});

const WarehouseParam = z.string().min(1).meta({ description: 'The catalog\'s id or name' });
const WarehouseParams = z.object({ warehouse_id: WarehouseParam });
const UploaderParams = z.object({ warehouse_id: WarehouseParam, uploader_id: z.string().min(1).meta({ description: 'The uploader\'s id (`upl_…`) or name' }) });
const IndexParams = z.object({ index_id: Id.meta({ description: 'The index\'s id' }) });

const QueryFlag = z.enum(['1', 'true', '0', 'false']);
const ObjectKey = z.string().min(1).meta({ description: 'An object key: at most 1024 bytes, no leading `/`, no `.` or `..` segment, no control character.', example: 'reports/2026/q1.pdf' });
const KeyPrefix = z.string().meta({ description: 'A key prefix (same grammar as a key; empty: the whole bucket).' });

// ---------------------------------------------------------------------------
// Answers.

const Writers = z.array(z.string()).meta({ description: 'Engines (with versions) that write this format version' });
const Readers = z.array(z.string()).meta({ description: 'Engines (with versions) that read this format version' });
const FormatNote = z.string();
const Warnings = z.array(z.string()).meta({ description: 'Format version 3 only: what to check before relying on it.' });

const NamespacesListing = z.object({
  warehouse: z.string().meta({ description: 'The catalog\'s name' }),
  warehouse_id: Id,
  namespaces: z.array(z.object({ namespace: z.string() })),
});

const TableListing = z.object({
  warehouse: z.string(),
  warehouse_id: Id,
  namespaces_searched: z.array(z.string()),
  tables: z.array(z.object({ namespace: z.string(), name: z.string(), table: z.string().meta({ description: '`<namespace>.<name>`' }) })),
});

const CreatedTable = z.object({
  table: z.string().meta({ description: '`<namespace>.<name>`' }),
  warehouse_id: Id,
  warehouse: z.string(),
  namespace: z.string(),
  name: z.string(),
  table_uuid: z.string(),
  location: z.string().meta({ description: 'The table\'s `s3://` location' }),
  format_version: z.union([z.literal(2), z.literal(3)]).meta({ description: 'The version the table really has' }),
  format_version_requested: z.union([z.literal(2), z.literal(3)]).nullable(),
  format_version_source: z.enum(['request', 'catalog_default']),
  format_version_honoured: z.boolean(),
  writers: Writers,
  readers: Readers,
  note: FormatNote,
  warnings: Warnings.optional(),
  v3_columns: z.array(z.object({ name: z.string(), type: z.string() })).optional().meta({ description: 'Format version 3 only: the columns whose types only version 3 has.' }),
});

const RunStatus = z.enum(['running', 'done', 'skipped', 'retried_after_conflict', 'failed']);

const TableView = z.object({
  table: z.string().meta({ description: '`<namespace>.<name>`' }),
  namespace: z.string(),
  name: z.string(),
  table_uuid: z.string(),
  location: z.string(),
  metadata_location: z.string().nullable(),
  format_version: z.int(),
  schema: z.array(z.object({
    id: z.int(),
    name: z.string(),
    type: z.unknown().meta({ description: 'An Iceberg type: a primitive\'s name, or a struct, list or map object' }),
    required: z.boolean(),
  })).meta({ description: 'The current schema\'s columns' }),
  identifier_field_ids: z.array(z.int()),
  partition_spec: z.object({
    spec_id: z.int(),
    fields: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The default partition spec\'s fields as Iceberg writes them (`source-id`, `field-id`, `name`, `transform`)' }),
  }),
  sort_order: z.object({
    order_id: z.int(),
    fields: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The default sort order\'s fields as Iceberg writes them (`source-id`, `transform`, `direction`, `null-order`); none when unsorted' }),
  }),
  snapshots: z.int().meta({ description: 'How many snapshots the metadata holds' }),
  snapshot_log: z.array(z.object({
    snapshot_id: z.union([z.int(), z.string()]),
    parent_snapshot_id: z.union([z.int(), z.string()]).nullable(),
    committed_at: IsoTime,
    operation: z.string().meta({ description: '`append`, `overwrite`, `replace` or `delete`, from the snapshot\'s summary' }),
    current: z.boolean(),
    added_records: z.int().optional(),
    deleted_records: z.int().optional(),
    added_data_files: z.int().optional(),
    deleted_data_files: z.int().optional(),
    added_files_size: z.int().optional(),
    removed_files_size: z.int().optional(),
    total_records: z.int().optional(),
    total_data_files: z.int().optional(),
    total_files_size: z.int().optional(),
  })).meta({ description: 'The newest 50 snapshots, newest first, with the figures of their summaries (those the writer recorded)' }),
  current_snapshot_id: z.union([z.int(), z.string()]).nullable().meta({ description: 'A number, or a string when it would not survive a JSON number; null without a snapshot' }),
  rows: z.int().nullable().meta({ description: 'Live rows, net of deletes when known; null only when nothing could be read' }),
  rows_source: z.enum(['snapshot_summary', 'snapshot_summary_net_of_deletes', 'manifest_list', 'manifests', 'manifests_net_of_deletes', 'no_snapshot', 'no_manifest_list']),
  rows_is_exact: z.boolean().meta({ description: 'False when equality deletes exist' }),
  data_files: z.int().nullable(),
  delete_files: z.int().nullable(),
  rows_gross: z.int().nullable().optional().meta({ description: 'With delete files: rows before deletes' }),
  position_delete_rows: z.int().optional().meta({ description: 'With delete files' }),
  equality_delete_rows: z.int().optional().meta({ description: 'With delete files' }),
  rows_note: z.string().optional().meta({ description: 'With equality deletes: why `rows` is an upper bound' }),
  properties: z.record(z.string(), z.string()),
  warehouse: z.string(),
  warehouse_id: Id,
  writers: Writers,
  readers: Readers,
  note: FormatNote,
  maintenance: z.object({
    running: z.boolean().meta({ description: 'Whether a run is under way' }),
    last_runs: z.array(z.object({
      kind: TableMaintenanceKind,
      status: RunStatus.exclude(['running']),
      reason: z.string().nullable(),
      finished_at: IsoTime.nullable(),
      freed_bytes: z.int(),
    })).meta({ description: 'The last finished run of each kind that ran' }),
    details: z.string().meta({ description: 'The path of the table\'s maintenance report (GET /v1/table/maintenance)' }),
  }),
  warnings: Warnings.optional(),
});

const UpdatedTable = z.object({
  table: z.string(),
  namespace: z.string(),
  name: z.string(),
  warehouse: z.string(),
  warehouse_id: Id,
  properties: z.record(z.string(), z.string()).meta({ description: 'Every property after the commit' }),
  set: z.array(z.string()).meta({ description: 'The keys set' }),
  removed: z.array(z.string()).meta({ description: 'The keys removed' }),
  metadata_location: z.string(),
});

const DroppedTable = z.object({
  table: z.string(),
  namespace: z.string(),
  name: z.string(),
  warehouse: z.string(),
  warehouse_id: Id,
  table_uuid: z.string(),
  location: z.string(),
  dropped: z.literal(true),
  purge: z.object({ status: z.literal('queued'), note: z.string() }),
});

const DroppedNamespace = z.object({ warehouse: z.string(), warehouse_id: Id, namespace: z.string(), dropped: z.literal(true) });

const MaintenanceRun = z.object({
  run_id: Id,
  kind: TableMaintenanceKind,
  trigger: z.unknown().meta({ description: 'Why it ran, as the worker recorded it: `{type: rule|sweep|manual, detail}`' }),
  status: RunStatus,
  reason: z.string().nullable(),
  before: z.unknown().meta({ description: 'The table\'s figures before the run, as the worker recorded them (free-form; may be null)' }),
  after: z.unknown().meta({ description: 'The figures after it (free-form; null until it finishes)' }),
  freed_bytes: z.int(),
  snapshot_id: z.string().nullable().meta({ description: 'The snapshot the run committed, if any' }),
  requested_by: z.string().nullable(),
  started_at: IsoTime,
  finished_at: IsoTime.nullable(),
}).meta({ id: 'TableMaintenanceRun' });

const MaintenanceReport = z.object({
  table: z.string(),
  namespace: z.string(),
  name: z.string(),
  warehouse: z.string(),
  warehouse_id: Id,
  table_uuid: z.string().nullable(),
  health: z.object({
    snapshots: z.int(),
    oldest_snapshot_at: IsoTime.nullable(),
    manifests: z.int().nullable(),
    data_files: z.int().nullable(),
    data_bytes: z.int().nullable(),
    avg_file_bytes: z.int().nullable(),
    small_files: z.int().nullable().meta({ description: 'As the last compaction run left them; null before one' }),
    small_files_as_of: IsoTime.nullable(),
    metadata_files: z.int(),
    orphan_candidates: z.int().nullable().meta({ description: 'As the last orphan pass found them; null before one' }),
    due: z.array(z.object({ kind: TableMaintenanceKind, rule: z.string() })).meta({ description: 'The rules the table crosses now' }),
    next_eligible_at: IsoTime,
  }),
  rules: z.array(z.string()).meta({ description: 'The maintenance rules in words' }),
  maintenance: z.object({
    compaction: z.boolean(),
    target_file_size_mb: z.int(),
    snapshot_retention_days: z.int(),
    max_snapshots: z.int(),
    disableable: z.boolean(),
  }).meta({ description: 'What every catalog promises' }),
  kinds: z.array(TableMaintenanceKind),
  runs: z.array(MaintenanceRun).meta({ description: 'The table\'s runs, newest first (at most 50)' }),
  note: z.string(),
});

const MaintenanceQueued = z.object({
  queued: z.literal(true),
  joined: z.boolean().meta({ description: 'A run of this table was already waiting or under way, and this request joined it' }),
  job_id: z.string(),
  table: z.string(),
  warehouse_id: Id,
  kinds: z.array(TableMaintenanceKind).nullable().meta({ description: 'The kinds queued; null when the request joined a run (its kinds stand)' }),
  trigger: z.object({ type: z.literal('manual'), detail: z.string() }),
  poll: z.string().meta({ description: 'The path to follow the run at' }),
  note: z.string(),
});

const MaintenancePlanned = z.object({
  dry_run: z.literal(true),
  table: z.string(),
  warehouse_id: Id,
  kinds: z.array(z.object({
    kind: TableMaintenanceKind,
    nothing: z.boolean().meta({ description: 'Whether the kind would find nothing to do' }),
    reason: z.string(),
    would: z.record(z.string(), z.unknown()).meta({ description: 'What the kind would do, in figures' }),
  })),
  note: z.string(),
});

const BlobListing = z.object({
  warehouse_id: Id,
  name: z.string().meta({ description: 'The catalog\'s name' }),
  bucket: z.string().meta({ description: 'The blob bucket' }),
  prefix: z.string(),
  delimiter: z.string(),
  max_keys: z.int(),
  objects: z.array(z.object({
    key: z.string(),
    name: z.string().meta({ description: 'The key\'s last segment' }),
    size: z.int(),
    last_modified: IsoTime.nullable(),
    etag: z.string(),
    url: z.string().optional().meta({ description: 'With `urls=1`: a presigned GET, valid 900 s' }),
  })),
  folders: z.array(z.object({ prefix: z.string(), name: z.string() })).meta({ description: 'Common prefixes under the delimiter' }),
  count: z.int(),
  truncated: z.boolean(),
  next_token: z.string().nullable().meta({ description: 'Pass as `token` for the next page; null on the last' }),
  urls_expire_in: z.int().optional().meta({ description: 'With `urls=1`: seconds' }),
  urls_expire_at: IsoTime.optional(),
});

const BlobsDeleted = z.object({
  warehouse_id: Id,
  name: z.string(),
  bucket: z.string(),
  key: z.string().optional().meta({ description: 'The key asked for (a delete by key)' }),
  prefix: z.string().optional().meta({ description: 'The prefix asked for (a delete by prefix)' }),
  deleted: z.array(z.string()).meta({ description: 'The keys that were there and are deleted' }),
  count: z.int(),
  more: z.boolean().meta({ description: 'By prefix: more objects remain; call again' }),
  note: z.string(),
});

const BlobPresigned = z.object({
  url: z.string(),
  method: z.literal('GET'),
  key: z.string(),
  bucket: z.string(),
  expires_in: z.int(),
  expires_at: IsoTime,
  download: z.boolean(),
});

const BlobUploaded = z.object({
  warehouse_id: Id,
  name: z.string(),
  bucket: z.string(),
  key: z.string(),
  size: z.int(),
  content_type: z.string(),
  etag: z.string().meta({ description: 'The body\'s MD5, hex' }),
  uploaded_at: IsoTime,
});

/** GET /v1/object's fields every form shares. */
const ObjectReadCommon = {
  warehouse: z.string().meta({ description: 'The catalog\'s name' }),
  warehouse_id: Id,
  bucket: z.string().meta({ description: 'The bucket read: the catalog\'s table bucket or blob bucket' }),
  bucket_kind: z.enum(['tables', 'blobs']),
  key: z.string().meta({ description: 'The object\'s key in that bucket' }),
  size: z.int().meta({ description: 'Bytes' }),
  content_type: z.string().nullable().meta({ description: 'As stored with the object' }),
  etag: z.string().meta({ description: 'Without quotes' }),
  last_modified: IsoTime.nullable(),
};

const ObjectRead = z.discriminatedUnion('kind', [
  z.object({
    ...ObjectReadCommon,
    kind: z.literal('json'),
    json: z.unknown().meta({ description: 'The file parsed, whole; integers beyond 2^53 (Iceberg ids) are written with every digit' }),
  }),
  z.object({ ...ObjectReadCommon, kind: z.literal('text'), text: z.string().meta({ description: 'The file, whole (UTF-8)' }) }),
  z.object({
    ...ObjectReadCommon,
    kind: z.literal('parquet'),
    columns: z.array(z.object({ name: z.string(), type: z.string().meta({ description: 'DuckDB\'s type name' }) })),
    rows: z.array(z.record(z.string(), z.unknown())).meta({ description: 'The first rows (at most 20), as JSON-safe values: 64-bit integers and decimals as strings, dates and times as ISO text' }),
    row_count: z.int().meta({ description: 'How many rows `rows` holds' }),
    truncated: z.boolean().meta({ description: 'Whether the file holds more rows than `rows`' }),
  }),
  z.object({
    ...ObjectReadCommon,
    kind: z.literal('url'),
    url: z.string().meta({ description: 'A presigned GET as the catalog\'s read-only identity' }),
    expires_in: z.int().meta({ description: 'Seconds: 900' }),
    expires_at: IsoTime,
  }),
]).meta({ id: 'ObjectRead' });

const IamWrite = z.object({ what: z.string(), target: z.string(), result: z.string() });

const UploaderRow = z.object({
  uploader_id: Id,
  warehouse_id: Id,
  warehouse_name: z.string().meta({ description: 'The catalog\'s table bucket name' }),
  name: z.string(),
  prefix: z.string(),
  list: z.boolean(),
  iam_user: z.string().meta({ description: '`u-<warehouse uuid>-<8 hex>`' }),
  access_key_id: z.string(),
  endpoint: z.string().meta({ description: 'The object store\'s public address' }),
  bucket: z.string().meta({ description: 'The blob bucket' }),
  region: z.string(),
  scope: z.string().meta({ description: '`s3://<bucket>/<prefix>*`' }),
  policy: z.object({ Version: z.literal('2012-10-17'), Statement: z.array(z.record(z.string(), z.unknown())) }).meta({ description: 'The storage identity\'s policy document' }),
  iam_writes: z.array(IamWrite).meta({ description: 'The identity-system writes this request made (empty in a listing)' }),
  expires_at: IsoTime.nullable(),
  created_at: IsoTime,
  created_by: z.string().nullable(),
  status: z.enum(['active', 'expired', 'revoked']),
  revoked_at: IsoTime.nullable(),
  recipe: z.object({ aws_cli: z.string(), python_boto3: z.string(), curl_presign_note: z.string() }).meta({ description: 'Ready-to-paste uploads (the secret as a placeholder, except in the creation answer)' }),
}).meta({ id: 'Uploader' });

// ---------------------------------------------------------------------------
// Refusals shared by the routes.

/** A catalog named by id or name (resolveWarehouse). */
const WAREHOUSE: ErrorCode[] = ['warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted', 'ambiguous_name'];
/** The table routes' catalog (tableWarehouse): named in the query or body, read level held, provisioned. */
const TABLE_WAREHOUSE: ErrorCode[] = ['missing_field', ...WAREHOUSE, 'forbidden', 'provisioning'];
/** The blob routes' catalog: the path's, the level held, provisioned. */
const BLOB_WAREHOUSE: ErrorCode[] = [...WAREHOUSE, 'forbidden', 'provisioning'];
/** A request parsed with a schema (validate.ts parse). */
const PARSED: ErrorCode[] = ['missing_field', 'invalid_value'];
/** A table loaded through the catalog. */
const LOADED: ErrorCode[] = ['namespace_not_found', 'table_not_found', 'catalog_error'];

/** Codes once each, in the order given. */
const codes = (...lists: ErrorCode[][]): ErrorCode[] => [...new Set(lists.flat())];

export const tablesFiles = {
  tag: 'Tables and files',
  description: 'Namespaces and tables through the control plane (as the catalog\'s own identity in its Iceberg REST catalog), table maintenance, the blob bucket\'s files and uploaders (write-only blob credentials), and one object of either bucket read through the API. `warehouse_id` (or its alias `warehouse`) takes a catalog\'s id or name.',
  operations: operations([
    {
      method: 'get', path: '/v1/namespaces', id: 'listNamespaces', service: 'control-plane',
      summary: 'List a catalog\'s namespaces, nested ones included',
      auth: CREDENTIAL,
      query: z.object(catalogChoice),
      responses: { 200: { description: 'Every namespace, levels joined with `.`.', schema: NamespacesListing } },
      errors: codes(TABLE_WAREHOUSE, ['catalog_error']),
    },
    {
      method: 'delete', path: '/v1/namespace', id: 'deleteNamespace', service: 'control-plane',
      summary: 'Delete an empty namespace',
      description: 'Write level. The reference (`warehouse_id` or `warehouse`, `namespace`) may come in the query or in a JSON body. Refused while the catalog is public, while a live sink appends to a table of the namespace, and while the namespace holds tables, views or child namespaces.',
      auth: CREDENTIAL,
      query: z.object({ ...catalogChoice, namespace: NamespaceName }),
      responses: { 200: { description: 'Dropped.', schema: DroppedNamespace } },
      errors: codes(PARSED, TABLE_WAREHOUSE, ['insufficient_scope', 'public_catalog', 'table_has_sinks', 'namespace_not_found', 'namespace_not_empty', 'catalog_error']),
    },
    {
      method: 'get', path: '/v1/tables', id: 'listTables', service: 'control-plane',
      summary: 'List a catalog\'s tables, in one namespace or in all',
      auth: CREDENTIAL,
      query: z.object({ ...catalogChoice, namespace: NamespaceName.optional().meta({ description: 'One namespace (levels joined with `.`); absent: every namespace' }) }),
      responses: { 200: { description: 'The tables of the namespaces searched.', schema: TableListing } },
      errors: codes(TABLE_WAREHOUSE, ['namespace_not_found', 'catalog_error']),
    },
    {
      method: 'post', path: '/v1/tables', id: 'createTable', service: 'control-plane',
      summary: 'Create an Iceberg table (its namespace on demand)',
      description: 'Write level. Made through the catalog as the catalog\'s own identity, in the format version asked for or the catalog\'s default; geometry and geography columns need version 3. Takes an `Idempotency-Key` header (1-255 characters): a repeat with the same body answers the first answer again with `Idempotent-Replayed: true`.',
      auth: CREDENTIAL,
      body: CreateTableDoc,
      responses: { 201: { description: 'Created.', schema: CreatedTable } },
      errors: codes(PARSED, TABLE_WAREHOUSE, ['insufficient_scope', 'idempotency_key_reused', 'creation_in_progress', 'quota_exceeded', 'catalog_error']),
    },
    {
      method: 'get', path: '/v1/table', id: 'getTable', service: 'control-plane',
      summary: 'Read a table: schema, partition spec, snapshots, row count, properties',
      description: 'Rows are counted from the snapshot summary or the manifests, net of delete files when known.',
      auth: CREDENTIAL,
      query: TableQueryDoc,
      responses: { 200: { description: 'The table.', schema: TableView } },
      errors: codes(PARSED, TABLE_WAREHOUSE, LOADED),
    },
    {
      method: 'patch', path: '/v1/table', id: 'updateTableProperties', service: 'control-plane',
      summary: 'Set and remove table properties in one commit',
      description: 'Write level. One commit through the catalog, asserting the table is the one loaded. Audited `table.update` with the previous values.',
      auth: CREDENTIAL,
      body: PatchTableDoc,
      responses: { 200: { description: 'Committed.', schema: UpdatedTable } },
      errors: codes(PARSED, TABLE_WAREHOUSE, ['insufficient_scope'], LOADED),
    },
    {
      method: 'delete', path: '/v1/table', id: 'deleteTable', service: 'control-plane',
      summary: 'Delete a table and purge its files',
      description: 'Write level. The reference (`warehouse_id` or `warehouse`, `namespace`, `name`) may come in the query or in a JSON body. Dropped through the catalog with purge: the catalog deletes the files under the table\'s location within seconds, only those no other table or view holds. Refused while the catalog is public and while a live sink appends to the table.',
      auth: CREDENTIAL,
      query: TableQueryDoc,
      responses: { 200: { description: 'Dropped; the purge is queued.', schema: DroppedTable } },
      errors: codes(PARSED, TABLE_WAREHOUSE, ['insufficient_scope', 'public_catalog', 'table_has_sinks'], LOADED),
    },
    {
      method: 'get', path: '/v1/table/maintenance', id: 'getTableMaintenance', service: 'control-plane',
      summary: 'Read a table\'s health against the maintenance rules, and its runs',
      auth: CREDENTIAL,
      query: TableQueryDoc,
      responses: { 200: { description: 'The table\'s figures, the rules it crosses now, when it next may, and its runs.', schema: MaintenanceReport } },
      errors: codes(PARSED, TABLE_WAREHOUSE, LOADED),
    },
    {
      method: 'post', path: '/v1/table/maintenance', id: 'requestTableMaintenance', service: 'control-plane',
      summary: 'Queue a maintenance run of a table, or plan one (dry run)',
      description: 'Write level. One run per table at a time: a run already waiting or under way is joined. A dry run is planned by the maintenance worker on the table as it is now and answered here, changing nothing.',
      auth: CREDENTIAL,
      body: MaintenanceAskDoc,
      responses: {
        200: { description: 'A dry run: what each kind would do.', schema: MaintenancePlanned },
        202: { description: 'Queued (or joined a run already queued).', schema: MaintenanceQueued },
      },
      errors: codes(PARSED, TABLE_WAREHOUSE, ['insufficient_scope'], LOADED, ['service_unavailable']),
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/blobs', id: 'listBlobs', service: 'control-plane',
      summary: 'List one page of the blob bucket\'s files and folders',
      description: 'Read level; acts as the catalog\'s read-only storage identity. `_sink/` (Floe\'s sink batches) is listed too.',
      auth: CREDENTIAL,
      params: WarehouseParams,
      query: z.object({
        prefix: KeyPrefix.optional(),
        delimiter: z.string().max(16).optional().meta({ description: 'Default `/`; empty lists flat. Up to 16 characters, no control characters.' }),
        token: z.string().optional().meta({ description: 'The previous page\'s `next_token`' }),
        max_keys: z.int().optional().meta({ description: '1 to 1000 (clamped); default 1000' }),
        urls: QueryFlag.optional().meta({ description: '`1`: add a presigned GET `url` (900 s) to each object' }),
      }),
      responses: { 200: { description: 'One page.', schema: BlobListing } },
      errors: codes(BLOB_WAREHOUSE, ['invalid_prefix', 'invalid_value', 'storage_error']),
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}/blobs', id: 'deleteBlobs', service: 'control-plane',
      summary: 'Delete one file, or one page of files under a prefix',
      description: 'Write level; exactly one of `key` and `prefix`. By prefix, at most 1000 objects go per call (`more: true` says to call again). Nothing in or reaching `_sink/` can be deleted (403 `forbidden` with `reserved_prefix`). Deletion is permanent.',
      auth: CREDENTIAL,
      params: WarehouseParams,
      query: z.object({ key: ObjectKey.optional(), prefix: KeyPrefix.optional() }),
      responses: { 200: { description: 'Deleted (or nothing was there).', schema: BlobsDeleted } },
      errors: codes(BLOB_WAREHOUSE, ['insufficient_scope', 'missing_field', 'invalid_value', 'invalid_key', 'invalid_prefix', 'storage_error']),
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/blobs/presign', id: 'presignBlob', service: 'control-plane',
      summary: 'Presign a download URL for one file',
      description: 'Read level. A SigV4 query-signed GET, path-style on the store\'s public address, as the catalog\'s read-only identity; the object\'s existence is not checked.',
      auth: CREDENTIAL,
      params: WarehouseParams,
      query: z.object({
        key: ObjectKey,
        expires: z.int().optional().meta({ description: 'Seconds, 30 to 3600 (clamped); default 900' }),
        download: QueryFlag.optional().meta({ description: '`1`: sign an attachment Content-Disposition with the key\'s last segment as the file name' }),
      }),
      responses: { 200: { description: 'The signed URL.', schema: BlobPresigned } },
      errors: codes(BLOB_WAREHOUSE, ['missing_field', 'invalid_key', 'invalid_value']),
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/blobs/upload', id: 'uploadBlob', service: 'control-plane',
      summary: 'Upload one small file to the blob bucket',
      description: 'Write level. The body is the file\'s raw bytes with its own `Content-Type` (stored as the object\'s; default `application/octet-stream`; form encodings are refused), at most the API\'s body limit (1 MB). Larger files go straight to the store (an uploader or the catalog credential). Keys in `_sink/` are refused (403 `forbidden`).',
      auth: CREDENTIAL,
      params: WarehouseParams,
      query: z.object({ key: ObjectKey }),
      body: z.string().meta({ description: 'The file\'s bytes, sent with the file\'s own Content-Type', format: 'binary' }),
      bodyType: 'application/octet-stream',
      responses: { 201: { description: 'Stored.', schema: BlobUploaded } },
      errors: codes(BLOB_WAREHOUSE, ['insufficient_scope', 'missing_field', 'invalid_key', 'unsupported_media_type', 'body_too_large', 'storage_error']),
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/uploaders', id: 'createUploader', service: 'control-plane',
      summary: 'Make an uploader: a write-only storage key for the blob bucket (its secret is shown once)',
      description: 'Write level. The key may PUT under its prefix only (single and multipart) and, with `list: true`, list under it: no reads, no deletes, no table bucket, no catalog, no API. A browser session must have signed in within 10 minutes.',
      auth: CREDENTIAL,
      params: WarehouseParams,
      body: CreateUploaderDoc,
      responses: {
        201: {
          description: 'The uploader, with its secret key this once.',
          schema: UploaderRow.extend({ secret_access_key: z.string().meta({ description: 'Shown once, never stored' }), note: z.string() }),
        },
      },
      errors: codes(PARSED, ['bad_name', 'reauth_required', 'insufficient_scope'], WAREHOUSE, ['forbidden', 'already_exists', 'limit_exceeded', 'storage_error']),
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/uploaders', id: 'listUploaders', service: 'control-plane',
      summary: 'List a catalog\'s uploaders (never their secrets)',
      description: 'Read level.',
      auth: CREDENTIAL,
      params: WarehouseParams,
      query: z.object({ include_revoked: z.enum(['true', 'false']).optional().meta({ description: '`true` adds revoked and expired uploaders' }) }),
      responses: {
        200: {
          description: 'The uploaders, newest first.',
          schema: z.object({
            warehouse_id: Id,
            warehouse_name: z.string().meta({ description: 'The catalog\'s table bucket name' }),
            bucket: z.string().meta({ description: 'The blob bucket' }),
            count: z.int(),
            uploaders: z.array(UploaderRow),
            note: z.string(),
          }),
        },
      },
      errors: codes(WAREHOUSE, ['forbidden']),
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}/uploaders/{uploader_id}', id: 'revokeUploader', service: 'control-plane',
      summary: 'Revoke an uploader (its key first, then its policy and identity)',
      description: 'Write level; the uploader by id or name. Idempotent: revoking one already revoked or expired changes nothing. A browser session must have signed in within 10 minutes.',
      auth: CREDENTIAL,
      params: UploaderParams,
      responses: {
        200: {
          description: 'Revoked, or already inactive (`already_revoked: true`).',
          schema: UploaderRow.extend({
            revoked: z.boolean(),
            already_revoked: z.boolean(),
            storage: z.object({
              access_key: z.enum(['deleted', 'absent']),
              user_policy: z.enum(['deleted', 'absent']),
              user: z.enum(['deleted', 'absent']),
            }).meta({ description: 'What each storage step found' }),
            note: z.string(),
            warning: z.null(),
          }),
        },
      },
      errors: codes(['reauth_required', 'insufficient_scope'], WAREHOUSE, ['forbidden', 'uploader_not_found', 'storage_error']),
    },
    {
      method: 'get', path: '/v1/object', id: 'readObject', service: 'control-plane',
      summary: 'Read one object of a catalog\'s table or blob bucket: a Parquet file\'s first rows, a small JSON or text file, or a download URL',
      description: 'Read level; every store call as the catalog\'s read-only storage identity. A Parquet file (known by its magic bytes) answers its first 20 rows, read by the query worker (admitted with the hosted query\'s statements: 429 `busy` beyond the deployment\'s or the organisation\'s share); a JSON (`.json`, `application/json`) or text (`text/*`, `.txt`, `.csv`, `.ndjson`, `.md`, `.log`, …) file of at most 1 MiB answers whole (JSON that does not parse as text; text that is not UTF-8 as a URL); anything else a presigned GET valid 900 s. The store answering nothing within 5 s is 504 `store_timeout`; refusing or failing, 502 `store_error`.',
      auth: CREDENTIAL,
      query: z.object({
        ...catalogChoice,
        key: z.string().meta({
          description: 'A key of the blob bucket (or of the table bucket with `bucket=tables`), or `s3://<bucket>/<key>` naming one of the catalog\'s two buckets. A key is at most 1024 bytes, no leading `/`, no `.` or `..` segment, no control character.',
          example: 's3://acme--lake/sales/orders/metadata/00001-1b2c.metadata.json',
        }),
        bucket: z.enum(['tables', 'blobs']).optional().meta({ description: 'The bucket of a bare key: `blobs` (default) or `tables`. With an `s3://` URI it must agree with the URI.' }),
      }),
      responses: { 200: { description: 'The object, in one of four forms (`kind`).', schema: ObjectRead } },
      errors: codes(TABLE_WAREHOUSE, ['invalid_key', 'invalid_value', 'not_found', 'busy', 'query_unavailable', 'store_error', 'store_timeout']),
    },
    // Spec routes a later issue builds: each answers 501 `not_implemented` after authentication.
    {
      method: 'post', path: '/v1/indexes', id: 'createIndex', service: 'control-plane',
      summary: 'Create an index (not built yet)',
      auth: CREDENTIAL,
      responses: {},
      errors: [],
      unbuilt: true,
    },
    {
      method: 'get', path: '/v1/indexes/{index_id}', id: 'getIndex', service: 'control-plane',
      summary: 'Read an index (not built yet)',
      auth: CREDENTIAL,
      params: IndexParams,
      responses: {},
      errors: [],
      unbuilt: true,
    },
    {
      method: 'delete', path: '/v1/indexes/{index_id}', id: 'deleteIndex', service: 'control-plane',
      summary: 'Delete an index (not built yet)',
      auth: CREDENTIAL,
      params: IndexParams,
      responses: {},
      errors: [],
      unbuilt: true,
    },
  ]),
};
