import { z } from 'zod';
import { operations, type Auth } from '../operation';
import { IsoTime, Id } from '../shapes';

// Spec: Warehouses (catalogs), Grants, the blob bucket's lifecycle, a
// catalog's instructions for assistants (Floe's), and the connection routes:
// the catalog credential's recipe, a table's storage session, a public
// catalog's anonymous recipe. The control plane answers every one of them.

// ---- Request schemas the routes parse with ----

/**
 * `default_format_version` as POST /v1/warehouses takes it: any JSON value
 * here, judged by the route (the number 2 or 3; anything else, a string "3"
 * included, is 400 `invalid_value` with `versions`).
 */
const FormatVersion = z.unknown().meta({
  description: 'The Iceberg format version the service\'s own create paths default to: the number 2 (default) or 3.',
  override: { type: 'integer', enum: [2, 3], default: 2 },
}).optional();

export const CreateWarehouseBody = z.object({
  project_id: z.string().min(1).meta({ description: 'The project\'s id or its name' }),
  name: z.string().min(1).meta({ description: 'The catalog\'s name: lowercase letters, digits and single underscores, starting with a letter, not ending in `_`; unique in the organisation.', example: 'lake' }),
  default_format_version: FormatVersion,
});

/** `{confirm}`: deleting (and publishing) a catalog is confirmed with its exact name. */
export const ConfirmWarehouseBody = z.object({
  confirm: z.string().optional().meta({ description: 'The catalog\'s name, exactly; anything else is 400 `confirmation_required` (with `confirm_with`).' }),
});

// files_prefix's every wrong value (a number included) is 400 `invalid_files_prefix`, from the route's own check.
export const PublishWarehouseBody = ConfirmWarehouseBody.extend({
  files_prefix: z.unknown().meta({
    description: 'Only the objects under this key prefix of the table bucket become readable (`lake/cities/`, or `s3://<bucket>/lake/cities`); absent, null or empty: the whole bucket.',
    override: { type: ['string', 'null'] },
  }).optional(),
});

export const PutWarehouseGrantBody = z.object({ level: z.enum(['read', 'write']) });

// ---- Request bodies the routes read by hand (described here for the document only) ----

const StorageAccess = z.enum(['vended', 'signing_only']).meta({
  id: 'StorageAccess',
  description: 'How engines reach the catalog\'s files: `vended`, storage credentials when asked for (remote signing when asked for); '
    + '`signing_only`, no storage credentials at all, every request to the store signed by the catalog (Floe\'s own switch).',
});

const PatchWarehouseDoc = z.strictObject({
  default_format_version: z.union([z.literal(2), z.literal(3)]).optional().meta({ description: 'Sending the value already set changes nothing.' }),
  storage_access: StorageAccess.optional(),
}).meta({ description: 'At least one setting.' });

const LifecycleRuleInput = z.strictObject({
  id: z.string().min(1).max(255).optional().meta({ description: 'Absent: `rule-<n>`, its position from 1.' }),
  prefix: z.string().optional().meta({ description: 'The key prefix the rule covers (absent: the whole bucket). An expiry may not reach `_sink/`.' }),
  expire_days: z.int().min(1).optional().meta({ description: 'Expire objects this many whole days after they were written (not 0).' }),
  expire_date: z.iso.date().optional().meta({ description: 'Expire objects on this date (midnight UTC); not together with `expire_days`.' }),
  abort_incomplete_multipart_days: z.int().min(1).optional(),
  enabled: z.boolean().optional().meta({ description: 'Default true.' }),
}).meta({ description: 'A rule expires objects (`expire_days` or `expire_date`) and/or aborts incomplete uploads; a field naming a transition is 400 `not_supported`, any other unknown field 400 `invalid_value`.' });

const PutLifecycleDoc = z.strictObject({
  rules: z.array(LifecycleRuleInput).min(1).max(1000).meta({ description: 'Replaces the configuration; at most 1000 rules and 1 MiB of S3 XML (else 413 `too_large`).' }),
});

const PutAgentsMdDoc = z.strictObject({
  content: z.string().meta({ description: 'The markdown text, at most 64 KiB of UTF-8; `""` removes it.' }),
  etag: z.string().min(1).nullable().optional().meta({ description: 'Write only over this version (the etag GET answered); null: only if none exists yet. The headers `If-Match` (etags or `*`) and `If-None-Match: *` say the same and win over it.' }),
});

const VendCredentialsDoc = z.object({
  warehouse_id: z.string().min(1).optional().meta({ description: 'The catalog\'s id or name (`warehouse` is accepted for the same field); one of the two is required.' }),
  warehouse: z.string().min(1).optional(),
  namespace: z.string().min(1),
  name: z.string().min(1).meta({ description: 'The table\'s name' }),
});

// ---- Shapes ----

const WarehouseParams = z.object({ warehouse_id: z.string().min(1).meta({ description: 'The catalog\'s id or its name' }) });
const GrantParams = WarehouseParams.extend({ principal_id: Id.meta({ description: 'The principal\'s id' }) });

const Level = z.enum(['read', 'write', 'none']);
const Via = z.enum(['admin', 'grant', 'creator', 'agent', 'membership']);
const PrincipalKind = z.enum(['human', 'agent', 'mcp', 'operator']);
const ENGINES = ['duckdb', 'pyiceberg', 'spark', 'snowflake'] as const;

const CatalogCredential = z.object({
  client_id: z.string().meta({ description: '`t-<uuid>` (read/write) or `t-<uuid>-ro` (read-only)' }),
  client_secret: z.string(),
}).meta({ id: 'CatalogCredential', description: 'A catalog credential: the Iceberg REST catalog\'s OAuth client credentials.' });

const Stored = z.object({
  bytes: z.int().nullable(),
  table_bytes: z.int().nullable(),
  blob_bytes: z.int().nullable(),
  objects: z.int().nullable(),
  blob_objects: z.int().nullable(),
  complete: z.boolean(),
  measured_at: IsoTime.nullable(),
  stale_after: IsoTime.nullable(),
  source: z.enum(['sweep', 'creation', 'on_demand']).nullable(),
  unmetered: z.boolean().meta({ description: 'No usage sample yet (every figure null).' }),
  measuring: z.boolean().meta({ description: 'Unmetered and ready: the first sample is on its way.' }),
}).meta({ id: 'WarehouseStored', description: 'The latest usage sample of both buckets.' });

const WarehouseRow = z.object({
  name: z.string(),
  warehouse_id: Id,
  warehouse: z.string().meta({ description: '`s3://<table bucket>/`' }),
  bucket: z.string().meta({ description: 'The table bucket' }),
  blob_bucket: z.string(),
  project_id: Id,
  project: z.string(),
  created_at: IsoTime,
  my_level: Level,
  my_via: Via.nullable(),
  status: z.enum(['ready', 'provisioning']),
  default_format_version: z.union([z.literal(2), z.literal(3)]),
  storage_access: StorageAccess,
  stored: Stored,
  public: z.boolean(),
  public_since: IsoTime.nullable(),
  public_url: z.string().nullable(),
}).meta({ id: 'Warehouse', description: 'A catalog as the list answers it.' });

const PUBLIC_NOTE_FIELD = z.string().meta({ description: 'Only while the catalog is public.' });

const WarehouseDetail = WarehouseRow.extend({
  warehouse_name: z.string().meta({ description: 'The table bucket (what engines pass as warehouse location)' }),
  catalog_uri: z.string(),
  provider: z.string(),
  region: z.string(),
  public_note: PUBLIC_NOTE_FIELD.optional(),
});

/** GET /v1/warehouses/{warehouse_id}'s answer (PATCH and restore answer the same row without `agents_md`, with their own fields). */
const WarehouseDetailWithAgentsMd = WarehouseDetail.extend({
  agents_md: z.object({ etag: z.string(), bytes: z.int(), updated_at: IsoTime.nullable() }).nullable()
    .meta({ description: 'The instructions\' version and size (GET …/agents-md has the text); null when there are none' }),
}).meta({ id: 'WarehouseDetail', description: 'A catalog as GET /v1/warehouses/{warehouse_id} answers it: the list row with its placement and address, and whether it has instructions for assistants.' });

const TeardownStep = z.enum(['queued', 'restoring', 'tables', 'storage', 'done']);

const DeletedWarehouseRow = z.object({
  warehouse_id: Id,
  name: z.string(),
  project_id: Id.nullable(),
  state: z.enum(['deleting', 'deleted']),
  requested_at: IsoTime.nullable(),
  completed_at: IsoTime.nullable(),
  tables_dropped: z.int().nullable(),
  bytes_at_deletion: z.int().nullable(),
  measured_at: IsoTime.nullable(),
  grants_removed: z.int().nullable(),
  usage_samples_removed: z.int().nullable(),
  storage: z.looseObject({ step: TeardownStep }).meta({ description: 'Teardown\'s step, and the storage steps done so far by name (`deleted`, `absent`, or a count).' }),
  storage_complete: z.boolean().nullable(),
  tables_refused: z.int().nullable(),
  teardown_error: z.object({
    message: z.string(), step: z.string(), attempts: z.int(), failed_at: IsoTime, gave_up: z.boolean(),
  }).nullable(),
  teardown_after: IsoTime.nullable(),
  restorable_until: IsoTime.nullable(),
  bucket: z.string().nullable(),
  blob_bucket: z.string().nullable(),
  project: z.string().nullable(),
  created_at: IsoTime,
  status: z.enum(['deleting', 'deleted']),
  restore: z.string().meta({ description: '`/v1/warehouses/{id}/restore`' }),
}).meta({ id: 'DeletedWarehouse', description: 'A catalog being deleted that restore would still take (`?include_deleted=true`): its tombstone.' });

const BucketQuotas = z.object({
  quotas: z.record(z.string(), z.object({ enabled: z.boolean(), max_bytes: z.int().nullable() })).meta({ description: 'By bucket name' }),
  errors: z.array(z.object({ bucket: z.string(), error: z.string() })).meta({ description: 'Buckets whose quota the store did not report' }),
}).meta({ id: 'BucketQuotas', description: 'The hard quotas the object store holds on the catalog\'s buckets.' });

const FormatVersionNumber = z.union([z.literal(2), z.literal(3)]);

const Grant = z.object({
  principal_id: Id,
  kind: PrincipalKind,
  display: z.string().nullable(),
  level: Level,
  via: Via.nullable(),
  granted_by: Id.nullable(),
  granted_at: IsoTime.nullable().meta({ description: 'When the grant was made; for an implicit grant, when the principal joined.' }),
}).meta({ id: 'WarehouseGrant' });

const LifecycleRule = z.object({
  id: z.string().nullable(),
  prefix: z.string(),
  enabled: z.boolean(),
  expire_days: z.int().nullable(),
  expire_date: z.iso.date().nullable(),
  abort_incomplete_multipart_days: z.int().nullable(),
  expressible: z.boolean().meta({ description: 'False for a rule made elsewhere that Floe\'s rule model cannot say (tags, size filters, transitions…).' }),
  tags: z.record(z.string(), z.string()).optional(),
  size_greater_than: z.int().optional(),
  size_less_than: z.int().optional(),
  other: z.array(z.string()).optional().meta({ description: 'What else the rule does (`transitions`, `noncurrent_version_expiration`, …).' }),
}).meta({ id: 'LifecycleRule', description: 'A lifecycle rule of the blob bucket, as read back.' });

const LifecycleHead = z.object({ warehouse_id: Id, name: z.string(), bucket: z.string().meta({ description: 'The blob bucket' }) });

const AgentsMd = z.object({
  content: z.string().nullable().meta({ description: 'Null once removed' }),
  etag: z.string().nullable(),
  bytes: z.int(),
  updated_at: IsoTime.nullable(),
  updated_by: Id.nullable(),
}).meta({ id: 'AgentsMd', description: 'A catalog\'s instructions for assistants (markdown) with their version.' });

const AgentsMdAnswer = z.object({ warehouse_id: Id, name: z.string(), agents_md: AgentsMd.nullable().meta({ description: 'Null when the catalog has none' }) });

const ETagHeader = z.object({ ETag: z.string().optional().meta({ description: 'The version as a quoted entity-tag; send it back in `If-Match`. Absent when there is none.' }) });

const StorageMeasurementQueued = z.object({ status: z.literal('scheduled'), in_seconds: z.literal(120), then: z.literal('hourly') });

const CreatedWarehouse = z.object({
  warehouse_id: Id,
  name: z.string(),
  project_id: Id,
  project: z.string(),
  provider: z.string(),
  region: z.string(),
  catalog_uri: z.string(),
  warehouse: z.string().meta({ description: '`s3://<table bucket>/`' }),
  warehouse_name: z.string(),
  bucket: z.string(),
  blob_bucket: z.string(),
  default_format_version: FormatVersionNumber,
  maintenance: z.object({
    compaction: z.literal(true), target_file_size_mb: z.int(), snapshot_retention_days: z.int(), max_snapshots: z.int(), disableable: z.literal(false),
  }),
  storage_measurement: StorageMeasurementQueued,
  status: z.enum(['ready', 'provisioning']),
  storage_probe: z.object({ table: z.enum(['ok', 'refused']), blob: z.enum(['ok', 'refused']), seconds: z.number() }),
  retry_after_seconds: z.int().optional().meta({ description: 'Only with `status: provisioning`' }),
  remedy: z.string().optional().meta({ description: 'Only with `status: provisioning`' }),
});

const DeletionAnswer = z.object({
  status: z.literal('deleting'),
  warehouse_id: Id,
  name: z.string(),
  project_id: Id.nullable(),
  bytes_at_deletion: z.int().nullable(),
  measured_at: IsoTime.nullable(),
  grants_removed: z.int(),
  usage_samples_removed: z.int(),
  tables_dropped: z.null(),
  storage: z.null(),
  storage_complete: z.null(),
  requested_at: IsoTime,
  restorable_until: IsoTime,
  restore: z.string(),
  poll: z.string(),
  note: z.string(),
  warning: z.string().optional().meta({ description: 'Only when the store did not take every sealing step at once' }),
});

const ConnectionAnswer = z.object({
  warehouse_id: Id,
  warehouse: z.string().meta({ description: 'The catalog\'s name' }),
  engine: z.enum(ENGINES),
  level: z.enum(['read', 'write']),
  catalog_uri: z.string(),
  warehouse_param: z.string().meta({ description: 'What the engine sends as `warehouse`' }),
  catalog_credential: CatalogCredential,
  s3: z.object({ endpoint: z.string(), region: z.string(), path_style: z.literal(true) }),
  recipe: z.string().meta({ description: 'Ready to paste into the engine' }),
  note: z.string(),
}).meta({ id: 'WarehouseConnection' });

// ---- Refusals shared by the routes that name a catalog ----

/** resolveWarehouse: not seen, one name held twice, or a tombstone. */
const RESOLVE = ['warehouse_not_found', 'ambiguous_name', 'warehouse_deleting', 'warehouse_deleted'] as const;
/** A read-scoped OAuth token asking for a change (every method but GET). */
const SCOPE = ['insufficient_scope'] as const;
/** Every route here but the public connection: an API key, a login session or a tool host's OAuth token (d.authed). */
const AUTH: Auth[] = ['api_key', 'session', 'oauth'];

export const catalogs = {
  tag: 'Catalogs',
  description: 'Catalogs (warehouses in the API): create, list, read, change, rotate, publish, measure, delete and restore; grants, the blob bucket\'s lifecycle, instructions for assistants, connection recipes and table storage sessions.',
  operations: operations([
    {
      method: 'post', path: '/v1/warehouses', id: 'createWarehouse', service: 'control-plane',
      summary: 'Create a catalog (its table bucket, blob bucket and credentials)',
      description: 'Takes an `Idempotency-Key` header: a retry with the same key and body answers the first answer (`Idempotent-Replayed: true`). '
        + 'On a storage probe refusal the catalog is still created with `status: provisioning`; the service retries for 10 minutes.',
      auth: AUTH,
      body: CreateWarehouseBody,
      responses: {
        201: {
          description: 'The new catalog (`status: ready`, or `provisioning` after a refused probe).',
          schema: CreatedWarehouse,
          headers: z.object({ 'Idempotent-Replayed': z.literal('true').optional().meta({ description: 'On an answer replayed for a repeated Idempotency-Key' }) }),
        },
      },
      errors: [
        'missing_field', 'invalid_value', 'invalid_name', 'name_too_long_for_bucket', 'forbidden', 'project_not_found', 'ambiguous_name',
        'already_exists', 'name_reserved_until_teardown', 'bucket_leftover_from_deletion', 'creation_in_progress', 'limit_exceeded', 'quota_exceeded',
        'idempotency_key_reused', 'storage_error', ...SCOPE,
      ],
    },
    {
      method: 'get', path: '/v1/warehouses', id: 'listWarehouses', service: 'control-plane',
      summary: 'List the catalogs you see',
      description: 'The catalogs of your organisations and owned projects (a member token: only those granted to it), oldest first; '
        + 'with `include_deleted=true`, then the ones being deleted that restore would still take.',
      auth: AUTH,
      query: z.object({
        project: z.string().optional().meta({ description: 'Only this project\'s catalogs (id or name)' }),
        include_deleted: z.enum(['true', 'false']).optional().meta({ description: '`true` adds catalogs being deleted that can still be restored' }),
      }),
      responses: {
        200: {
          description: 'The catalogs.',
          schema: z.object({
            project: z.string().nullable().meta({ description: 'Null without `?project`' }),
            project_id: Id.nullable(),
            catalog_uri: z.string(),
            warehouses: z.array(z.union([WarehouseRow, DeletedWarehouseRow])),
            count: z.int(),
            limit: z.int().meta({ description: 'Catalogs per project' }),
            headroom: z.int().nullable().meta({ description: 'How many more the project may hold; null without `?project`' }),
          }),
        },
      },
      errors: ['project_not_found', 'ambiguous_name'],
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}', id: 'getWarehouse', service: 'control-plane',
      summary: 'Read a catalog',
      description: 'A catalog being deleted or deleted answers 404 `warehouse_deleting` or `warehouse_deleted` with its tombstone.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'The catalog, and whether it has instructions for assistants.',
          schema: WarehouseDetailWithAgentsMd,
        },
      },
      errors: [...RESOLVE],
    },
    {
      method: 'patch', path: '/v1/warehouses/{warehouse_id}', id: 'updateWarehouse', service: 'control-plane',
      summary: 'Change a catalog\'s settings: default format version, storage access',
      description: 'Write level. `default_format_version` governs only the service\'s own create paths; an engine\'s own CREATE TABLE is honoured as sent and existing tables are unchanged. '
        + '`storage_access` (Floe\'s own) chooses between vended credentials and signed requests only.',
      auth: AUTH,
      params: WarehouseParams,
      body: PatchWarehouseDoc,
      responses: {
        200: {
          description: 'The catalog as GET answers it, with what changed.',
          schema: WarehouseDetail.extend({
            updated: z.array(z.enum(['default_format_version', 'storage_access'])).meta({ description: 'Empty when every value sent was already set' }),
            previous: z.object({ default_format_version: FormatVersionNumber, storage_access: StorageAccess }),
            format: z.object({ writers: z.array(z.string()), readers: z.array(z.string()), note: z.string() }),
            note: z.string(),
          }),
        },
      },
      errors: ['missing_field', 'invalid_field', 'invalid_value', 'forbidden', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}', id: 'deleteWarehouse', service: 'control-plane',
      summary: 'Delete a catalog (restorable during its grace period)',
      description: 'Admin of the organisation. Confirmed with the catalog\'s name. The catalog is gone for every caller at once; '
        + 'tables and storage are removed when the grace period ends, until then POST …/restore brings it back.',
      auth: AUTH,
      params: WarehouseParams,
      body: ConfirmWarehouseBody,
      responses: { 202: { description: 'Deletion begun.', schema: DeletionAnswer } },
      errors: ['confirmation_required', 'invalid_value', 'forbidden', 'warehouse_not_found', 'ambiguous_name', 'warehouse_deleted', 'delete_in_progress', ...SCOPE],
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/rotate', id: 'rotateWarehouseCredentials', service: 'control-plane',
      summary: 'Replace both catalog credentials',
      description: 'Write level; a browser session must have signed in within 10 minutes. The new pair is shown once. '
        + 'The old read/write key is refused before the answer, the old read-only key shortly after.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'The new pair, and what happens to the old one.',
          schema: z.object({
            warehouse_id: Id,
            warehouse_name: z.string(),
            catalog_credential: CatalogCredential,
            catalog_credential_ro: CatalogCredential,
            previous_client_id: z.string().nullable(),
            previous_revoked: z.boolean(),
            previous_client_id_ro: z.string().nullable(),
            previous_revoked_ro: z.literal(false),
            previous_ro_revocation: z.object({ status: z.literal('queued'), audit: z.literal('warehouse.rotate_complete'), expected: IsoTime }).nullable(),
            rotated_at: IsoTime,
            note: z.string(),
          }),
        },
      },
      errors: ['forbidden', 'reauth_required', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/restore', id: 'restoreWarehouse', service: 'control-plane',
      summary: 'Restore a catalog being deleted',
      description: 'Admin of the organisation; within the grace period, before teardown begins. The catalog comes back with its tables, data and grants, '
        + 'private, with a new pair of catalog credentials (shown once; the old pair stays refused). The path takes the id, or the name of a catalog being deleted.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'The catalog as GET answers it, and the new credentials.',
          schema: WarehouseDetail.extend({
            restored: z.literal(true),
            restored_at: IsoTime,
            deleted_at: IsoTime.nullable(),
            grants_restored: z.int(),
            storage_measurement: z.object({
              status: z.enum(['scheduled', 'next_sweep']),
              in_seconds: z.literal(0).nullable(),
              then: z.literal('hourly'),
            }),
            catalog_credential: CatalogCredential,
            catalog_credential_ro: CatalogCredential,
            previous_client_ids: z.array(z.string()),
            note: z.string(),
          }),
        },
      },
      errors: ['warehouse_not_found', 'ambiguous_name', 'forbidden', 'not_deleted', 'not_restorable', 'already_exists', 'limit_exceeded', 'storage_error', ...SCOPE],
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/public', id: 'publishWarehouse', service: 'control-plane',
      summary: 'Make a catalog\'s files readable by anyone',
      description: 'Admin, and a person (not a token). One bucket policy lets anyone read the table bucket\'s objects (or those under `files_prefix`) '
        + 'without credentials; writes stay refused and the catalog itself stays private. Its bytes move to the public tier.',
      auth: AUTH,
      params: WarehouseParams,
      body: PublishWarehouseBody,
      responses: {
        200: {
          description: 'Public.',
          schema: z.object({
            warehouse_id: Id,
            name: z.string(),
            project_id: Id,
            public: z.literal(true),
            public_since: IsoTime,
            public_url: z.string(),
            public_note: z.string(),
            files_prefix: z.string().meta({ description: 'The key prefix anyone may read under, ending in `/`; empty for the whole bucket' }),
            public_by: Id,
            policy: z.record(z.string(), z.unknown()).nullable().meta({ description: 'The bucket policy as set (an S3 policy document)' }),
            tier: z.literal('public'),
            public_storage_bytes: z.object({
              table_bytes: z.int().nullable(),
              measured_at: IsoTime.nullable(),
              tier_current: z.int(),
              tier_limit: z.int(),
            }),
            public_read: z.object({
              bucket: z.string(),
              prefix: z.string(),
              anonymous_get: z.literal(true),
              anonymous_list: z.literal(false),
              writes: z.literal('refused'),
              catalog: z.literal('private'),
            }),
            bucket_quotas: BucketQuotas,
            note: z.string(),
          }),
        },
      },
      errors: [
        'confirmation_required', 'invalid_value', 'invalid_files_prefix', 'forbidden', 'person_required', 'org_policy_forbids',
        'quota_exceeded', 'storage_error', ...RESOLVE, ...SCOPE,
      ],
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}/public', id: 'unpublishWarehouse', service: 'control-plane',
      summary: 'Make a catalog private again',
      description: 'Admin. Anonymous reads are refused from then on; calling it on a private catalog changes nothing.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'Private.',
          schema: z.object({
            warehouse_id: Id,
            name: z.string(),
            project_id: Id,
            public: z.literal(false),
            public_since: z.null(),
            public_url: z.null(),
            was_public: z.boolean(),
            policy_removed: z.boolean(),
            tier: z.literal('private'),
            storage_bytes: z.object({ table_bytes: z.int().nullable(), blob_bytes: z.int().nullable(), measured_at: IsoTime.nullable() }),
            bucket_quotas: BucketQuotas,
            note: z.string(),
          }),
        },
      },
      errors: ['forbidden', 'storage_error', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'post', path: '/v1/warehouses/{warehouse_id}/measure', id: 'measureWarehouse', service: 'control-plane',
      summary: 'Measure a catalog\'s buckets now',
      description: 'Read level; no body. Lists both buckets (at most 50 pages each; beyond that `partial: true` and `bytes` is a lower bound) '
        + 'and keeps the result as an `on_demand` usage sample. Once a minute per catalog. Quota enforcement still follows the hourly sweep.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'The measurement.',
          schema: z.object({
            name: z.string(),
            warehouse_id: Id,
            measured_at: IsoTime,
            stale_after: IsoTime,
            source: z.literal('on_demand'),
            bytes: z.int(),
            table_bytes: z.int(),
            blob_bytes: z.int(),
            objects: z.int(),
            blob_objects: z.int(),
            complete: z.boolean(),
            partial: z.boolean(),
            pages: z.int(),
            page_cap: z.int(),
            blob_bucket: z.enum(['listed', 'unprovisioned']),
            seconds: z.number(),
            tier: z.enum(['public', 'private']),
            storage: z.object({
              current: z.int(), limit: z.int(), headroom: z.int(), measured_at: IsoTime, stale_after: IsoTime, over_limit: z.boolean(),
            }).meta({ description: 'The quota scope\'s stored bytes, this sample counted' }),
            public_storage: z.object({ table_bytes: z.int().optional(), limit: z.int().optional() })
              .meta({ description: 'While public: the table bytes and the public tier\'s allowance; else empty' }),
            bucket_quotas: z.object({}),
            note: z.string(),
          }),
        },
      },
      errors: ['forbidden', 'rate_limited', 'storage_error', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/grants', id: 'listWarehouseGrants', service: 'control-plane',
      summary: 'List who holds what on a catalog',
      description: 'Every principal of the catalog\'s organisation with the level it holds and why, implicit grants included; a revoked membership read is listed as `none`.',
      auth: AUTH,
      params: WarehouseParams,
      responses: { 200: { description: 'The grants.', schema: z.array(Grant) } },
      errors: [...RESOLVE],
    },
    {
      method: 'put', path: '/v1/warehouses/{warehouse_id}/grants/{principal_id}', id: 'putWarehouseGrant', service: 'control-plane',
      summary: 'Grant a principal read or write on a catalog',
      description: 'An admin, or a person holding write (granting at most their own level). A read grant yields the read-only catalog credential, a write grant the read/write one.',
      auth: AUTH,
      params: GrantParams,
      body: PutWarehouseGrantBody,
      responses: {
        200: {
          description: 'Granted.',
          schema: z.object({
            warehouse_id: Id, principal_id: Id, kind: PrincipalKind, display: z.string().nullable(),
            level: z.enum(['read', 'write']), via: z.literal('grant'), granted_by: Id,
          }),
        },
      },
      errors: ['missing_field', 'invalid_value', 'forbidden', 'principal_not_found', 'principal_inactive', 'implicit_grant', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}/grants/{principal_id}', id: 'revokeWarehouseGrant', service: 'control-plane',
      summary: 'Revoke a principal\'s grant on a catalog',
      description: 'An admin, or the person who made the grant. Revoking a member\'s implicit read records level `none`; an admin\'s or creator\'s implicit write cannot be revoked.',
      auth: AUTH,
      params: GrantParams,
      responses: {
        200: {
          description: 'Revoked: what the principal held, and what it holds now.',
          schema: z.object({
            warehouse_id: Id, principal_id: Id, kind: PrincipalKind, display: z.string().nullable(),
            revoked: z.object({ level: Level, via: Via.nullable() }),
            level: Level,
            via: Via.nullable(),
          }),
        },
      },
      errors: ['forbidden', 'grant_not_found', 'implicit_grant', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/lifecycle', id: 'getWarehouseLifecycle', service: 'control-plane',
      summary: 'Read the blob bucket\'s lifecycle rules',
      auth: AUTH,
      params: WarehouseParams,
      query: z.object({ include_xml: z.enum(['1', 'true', '0', 'false']).optional().meta({ description: '`1` or `true` adds the configuration\'s S3 XML' }) }),
      responses: {
        200: {
          description: 'The rules (`configured: false` and none when there is no configuration).',
          schema: LifecycleHead.extend({
            configured: z.boolean(),
            rules: z.array(LifecycleRule),
            count: z.int(),
            xml: z.string().nullable().optional().meta({ description: 'Only with `include_xml`; null when nothing is configured' }),
            note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'forbidden', 'provisioning', 'storage_error', ...RESOLVE],
    },
    {
      method: 'put', path: '/v1/warehouses/{warehouse_id}/lifecycle', id: 'putWarehouseLifecycle', service: 'control-plane',
      summary: 'Replace the blob bucket\'s lifecycle rules',
      description: 'Write level. Applies to the blob bucket only, never the table bucket. Objects are deleted up to 24 h after they are due, permanently.',
      auth: AUTH,
      params: WarehouseParams,
      body: PutLifecycleDoc,
      responses: {
        200: {
          description: 'The rules as stored.',
          schema: LifecycleHead.extend({
            configured: z.literal(true),
            rules: z.array(LifecycleRule),
            count: z.int(),
            xml_bytes: z.int(),
            note: z.string(),
          }),
        },
      },
      errors: ['missing_field', 'invalid_value', 'not_supported', 'too_large', 'forbidden', 'provisioning', 'storage_error', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'delete', path: '/v1/warehouses/{warehouse_id}/lifecycle', id: 'deleteWarehouseLifecycle', service: 'control-plane',
      summary: 'Remove the blob bucket\'s lifecycle rules',
      description: 'Write level. Idempotent: clearing nothing answers zero rules removed.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: {
          description: 'No rules now.',
          schema: LifecycleHead.extend({
            configured: z.literal(false),
            had_rules: z.boolean(),
            rules_removed: z.int(),
            rules: z.array(LifecycleRule).max(0),
            count: z.literal(0),
            note: z.string(),
          }),
        },
      },
      errors: ['forbidden', 'provisioning', 'storage_error', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'get', path: '/v1/warehouses/{warehouse_id}/agents-md', id: 'getWarehouseAgentsMd', service: 'control-plane',
      summary: 'Read a catalog\'s instructions for assistants',
      description: 'Read level. The markdown an assistant reads before working in the catalog, with its version (also the `ETag` header); `If-None-Match` with that version answers 304.',
      auth: AUTH,
      params: WarehouseParams,
      responses: {
        200: { description: 'The instructions, or `agents_md: null`.', schema: AgentsMdAnswer, headers: ETagHeader },
        304: { description: 'Unchanged since the version `If-None-Match` names: no body.' },
      },
      errors: ['forbidden', ...RESOLVE],
    },
    {
      method: 'put', path: '/v1/warehouses/{warehouse_id}/agents-md', id: 'putWarehouseAgentsMd', service: 'control-plane',
      summary: 'Write a catalog\'s instructions for assistants',
      description: 'Write level. A compare-and-set: with an etag (body, or `If-Match`) or `If-None-Match: *`, a version changed since is 409 `agents_md_changed` '
        + 'with the current etag. `content: ""` removes the instructions.',
      auth: AUTH,
      params: WarehouseParams,
      body: PutAgentsMdDoc,
      responses: {
        200: {
          description: 'The new version (content null and etag null after a removal), and the one it replaced.',
          schema: AgentsMdAnswer.extend({ agents_md: AgentsMd, previous_etag: z.string().nullable() }),
          headers: ETagHeader,
        },
      },
      errors: ['missing_field', 'invalid_field', 'invalid_value', 'too_large', 'agents_md_changed', 'forbidden', ...RESOLVE, ...SCOPE],
    },
    {
      method: 'get', path: '/v1/connection', id: 'getConnection', service: 'control-plane',
      summary: 'A ready-to-paste engine recipe with the catalog credential',
      description: 'The credential matches the level: write holders get the read/write one (`t-<uuid>`), read holders, `level=read` and the read-only platform (`snowflake`) the read-only one (`t-<uuid>-ro`).',
      auth: AUTH,
      query: z.object({
        warehouse_id: z.string().optional().meta({ description: 'The catalog\'s id or name; `warehouse` is accepted for the same. One of the two is required.' }),
        warehouse: z.string().optional(),
        engine: z.enum(ENGINES).optional().meta({ description: 'Default `duckdb`' }),
        level: z.enum(['read', 'write']).optional().meta({ description: '`read` gives the read-only recipe to anyone; `write` needs write; absent: the level you hold' }),
      }),
      responses: { 200: { description: 'The recipe.', schema: ConnectionAnswer } },
      errors: ['missing_field', 'unsupported_engine', 'invalid_value', 'forbidden', 'provisioning', ...RESOLVE],
    },
    {
      method: 'post', path: '/v1/credentials', id: 'vendTableCredentials', service: 'control-plane',
      summary: 'A short-lived storage session for one table',
      description: 'Write level (read holders use the read-only catalog credential of GET /v1/connection?level=read). '
        + 'The session, vended by the catalog, is confined to the table\'s location and runs out within 900 s.',
      auth: AUTH,
      body: VendCredentialsDoc,
      responses: {
        200: {
          description: 'The storage session.',
          schema: z.object({
            warehouse_id: Id,
            warehouse: z.string().meta({ description: 'The catalog\'s name' }),
            table: z.string().meta({ description: '`<namespace>.<name>`' }),
            location: z.string(),
            bucket: z.string(),
            prefix: z.string().meta({ description: 'The key prefix the session may reach' }),
            endpoint: z.string(),
            region: z.string(),
            path_style: z.literal(true),
            credentials: z.object({
              access_key_id: z.string(),
              secret_access_key: z.string(),
              session_token: z.string().optional(),
              expires_at: IsoTime.nullable(),
            }),
            note: z.string(),
          }),
        },
      },
      errors: [
        'missing_field', 'invalid_value', 'forbidden', 'provisioning', 'quota_exceeded', 'namespace_not_found', 'table_not_found', 'catalog_error',
        ...RESOLVE, ...SCOPE,
      ],
    },
    {
      method: 'get', path: '/v1/public/{handle}/{catalog}/connection', id: 'getPublicCatalogConnection', service: 'control-plane',
      summary: 'How to read a public catalog without a credential',
      description: 'No credential. The current metadata file of each table a public catalog lets anyone read, and recipes that read them anonymously. '
        + 'A private or unknown catalog is 404 `public_catalog_not_found` alike.',
      auth: ['none'],
      params: z.object({
        handle: z.string().meta({ description: 'The organisation\'s handle (outside one, `u-<8 hex>` of the bucket names)' }),
        catalog: z.string().meta({ description: 'The catalog\'s name' }),
      }),
      responses: {
        200: {
          description: 'The public catalog\'s tables and recipes.',
          schema: z.object({
            handle: z.string(),
            catalog: z.string(),
            warehouse_id: Id,
            public: z.literal(true),
            public_since: IsoTime,
            bucket: z.string(),
            public_url: z.string(),
            files_prefix: z.string(),
            s3: z.object({ endpoint: z.string(), region: z.string(), path_style: z.literal(true), anonymous: z.literal(true) }),
            count: z.int(),
            tables: z.array(z.object({
              table: z.string(),
              namespace: z.array(z.string()),
              name: z.string(),
              metadata_location: z.string(),
              metadata_url: z.string(),
            })),
            recipe: z.object({ duckdb: z.string(), pyiceberg: z.string() }),
            note: z.string(),
          }),
        },
      },
      errors: ['public_catalog_not_found', 'public_catalog_ambiguous'],
    },
  ]),
};
