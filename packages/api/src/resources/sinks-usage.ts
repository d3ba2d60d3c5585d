import { z } from 'zod';
import { operations } from '../operation';
import { IsoTime, Id } from '../shapes';

// Spec: Ingest sinks (the records in the control plane; the send route and the
// device route in the ingest gateway), Usage and audit, Operator routes.
//
// While ingest sinks are switched off for the deployment (FLOE_SINKS=off),
// every sink route — the control plane's and the ingest gateway's — answers
// 404 `not_found` before any credential is looked at; the operations below
// list that code with the switched-on ones.

// ---------------------------------------------------------------------------
// Request schemas the sink routes parse with (services/control-plane/src/routes/sinks.ts, sink-device.ts)

const MIB = 1024 * 1024;
// The columns are 4-byte integers: a larger number is refused here, not by the database.
const INT_MAX = 2_147_483_647;

// One rule for a setting, whether given at creation or changed later.
const RollSeconds = z.number().int().min(60, 'at least 60').max(INT_MAX, `at most ${INT_MAX}`);
const RollBytes = z.number().int().min(32 * MIB, 'from 33554432 (32 MiB)').max(64 * MIB, 'to 67108864 (64 MiB)');
const InactivitySeconds = z.number().int().min(1, 'at least 1').max(INT_MAX, `at most ${INT_MAX}`).nullable();

/**
 * POST /v1/sinks. The route also requires `warehouse` or `warehouse_id`
 * (400 `missing_field`), a sink name of 1-63 lowercase letters, digits, `_`
 * and `-` starting with a letter (400 `bad_name`), and `table` as
 * `<namespace>.<table>` (400 `invalid_value`).
 */
export const CreateSinkBody = z.object({
  name: z.string().meta({ description: 'The sink\'s name, unique among the catalog\'s live sinks: 1-63 lowercase letters, digits, `_` and `-`, starting with a letter.', example: 'clicks' }),
  table: z.string().min(1).meta({ description: 'The table to append to, `<namespace>.<table>`: existing and unpartitioned; one sink per table.', example: 'web.clicks' }),
  warehouse: z.string().min(1).optional().meta({ description: 'The catalog, by id or name (this or `warehouse_id` is required).' }),
  warehouse_id: z.string().min(1).optional().meta({ description: 'The catalog, by id or name; wins over `warehouse`.' }),
  roll_seconds: RollSeconds.default(300),
  roll_bytes: RollBytes.default(64 * MIB),
  inactivity_seconds: InactivitySeconds.default(null),
});

/**
 * PATCH /v1/sinks/{sink_id}. The route takes an object of one or more of
 * these fields (400 `missing_field` for none, `invalid_value` with
 * `accepted` for any other), and a new name follows the naming rule (400 `bad_name`).
 */
export const ChangeSinkBody = z.object({
  name: z.string().optional(),
  roll_seconds: RollSeconds.optional(),
  roll_bytes: RollBytes.optional(),
  inactivity_seconds: InactivitySeconds.optional(),
  enabled: z.boolean().optional(),
});

const DeviceField = z.string().min(1).max(128);

/**
 * POST /v1/sinks/{sink_id}/device-token: the body-level options of the device
 * route. The presets are packages/ingest's PRESETS (device-options.ts); the
 * route hands the parsed body to the domain typed with them, so a preset this
 * list has and that one lacks does not typecheck.
 */
export const SinkDeviceTokenBody = z.object({
  required_field: DeviceField.nullable().default(null),
  pinned_value: z.string().min(8, 'at least 8 characters').max(256).nullable().default(null),
  strip_fields: z.array(DeviceField).max(64).default([]),
  preset: z.enum(['as_is', 'flatten', 'wrap']).default('as_is'),
  preset_params: z.object({
    separator: z.string().min(1).max(4).optional(),
    column: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'a column name').optional(),
  }).strict().default({}),
}).strict();

/** PATCH /v1/admin/orgs/{org_id}/limits (services/control-plane/src/routes/operator.ts). */
export const ChangeOrgLimitsBody = z.object({
  plan: z.string().optional(),
  overrides: z.record(z.string(), z.number().nullable()).optional(),
  note: z.string().max(2000).nullable().optional(),
}).strict();

// ---------------------------------------------------------------------------
// Shapes of the answers

const SinkParams = z.object({ sink_id: z.string().min(1).meta({ description: 'The sink\'s id (`snk_…`) or its name (409 `ambiguous_name` when two visible sinks share it)' }) });

const DeviceOptionsView = z.object({
  required_field: z.string().nullable(),
  pinned: z.boolean().meta({ description: 'Whether the required field is pinned to a secret value (never shown).' }),
  strip_fields: z.array(z.string()),
  preset: z.enum(['as_is', 'flatten', 'wrap']),
  preset_params: z.object({
    separator: z.string().optional().meta({ description: 'The flatten preset\'s (default `_`).' }),
    column: z.string().optional().meta({ description: 'The wrap preset\'s (default `payload`).' }),
  }),
}).meta({ id: 'SinkDeviceOptions', description: 'The device route\'s body-level options, applied to each element before it is stored.' });

const RejectReasons = z.record(z.string(), z.int()).meta({ description: 'Rows turned away, by reason.' });

const RecentRejects = z.object({
  at: IsoTime,
  rows: z.int(),
  snapshot_id: z.string().nullable(),
  file: z.string().nullable(),
  reasons: RejectReasons,
  examples: z.array(z.object({ batch_id: z.string(), line: z.int(), reason: z.string(), raw: z.string() })),
});

const SinkRow = z.object({
  sink_id: Id,
  name: z.string(),
  table: z.string().meta({ description: '`<namespace>.<table>`' }),
  warehouse_id: Id,
  warehouse_name: z.string(),
  bucket: z.string().meta({ description: 'The catalog\'s blob bucket, where batches wait.' }),
  state: z.enum(['active', 'disabled', 'deleted']),
  roll: z.object({ seconds: z.int(), bytes: z.int(), inactivity_seconds: z.int().nullable(), count: z.int() }),
  prefix: z.string().meta({ description: 'Where the sink\'s waiting batches are in the blob bucket.' }),
  ingest_url: z.string(),
  send_url: z.string(),
  send_key_id: z.string(),
  table_changes: z.object({
    add_column: z.literal('__ingest_ts'),
    partition: z.literal('none'),
    properties: z.record(z.string(), z.string()),
    applied: z.boolean(),
  }).meta({ description: 'What the first roll changes in the table, and whether it has.' }),
  lag: z.object({ batches_waiting: z.int(), bytes_waiting: z.int(), oldest_waiting_at: IsoTime.nullable(), seconds_behind: z.int() }),
  received: z.object({
    batches: z.int(), device_batches: z.int(), rows: z.int(), bytes: z.int(), ingest_bytes: z.int(), rejected_elements: z.int(),
  }).meta({ description: 'Intake since the sink was made.' }),
  device: z.union([
    z.object({ enabled: z.literal(true), url: z.string(), token_created_at: IsoTime.nullable(), options: DeviceOptionsView }),
    z.object({ enabled: z.literal(false) }),
  ]).meta({ description: 'The device route: whether a token is set (its URL shows the token only once, when minted).' }),
  last_roll: z.object({
    at: IsoTime, batches: z.int(), rows: z.int(), rejected_rows: z.int(), snapshot_id: z.string().nullable(), seconds: z.number(),
  }).nullable(),
  rejects: z.object({
    rows: z.int(), files: z.int(), prefix: z.string(), bucket: z.string(), age_out_days: z.literal(7),
    recent: z.array(RecentRejects).meta({ description: 'The latest rolls with rejects, newest first (at most 5).' }),
  }),
  freshness: z.object({
    last_roll_at: IsoTime.nullable(),
    oldest_pending_age_seconds: z.int(),
    batches_committed_last_hour: z.int(),
    send_to_commit_p99_seconds_last_hour: z.number().nullable(),
  }),
  disabled_reason: z.string().nullable(),
  iam_writes: z.tuple([]).meta({ description: 'Always empty: a sink writes no storage identity.' }),
  created_at: IsoTime,
  deleted_at: IsoTime.nullable(),
}).meta({ id: 'Sink' });

const SettingName = z.enum(['name', 'roll_seconds', 'roll_bytes', 'inactivity_seconds', 'enabled', 'disabled_reason']);

const BatchState = z.enum(['pending', 'committed']);

const BatchDuplicate = z.object({
  duplicate: z.literal(true),
  batch_id: z.string(),
  accepted: z.int(),
  rejected: z.int(),
  bytes: z.int(),
  received_at: IsoTime,
  state: BatchState,
}).meta({ id: 'SinkBatchDuplicate', description: 'A batch already received: its counts and state; nothing was read or written.' });

const ElementKind = z.enum(['object', 'array', 'string', 'number', 'boolean', 'null']);

const SendBody = z.array(z.record(z.string(), z.unknown())).meta({
  description: 'A JSON array of objects (rows), at most 16 MiB; each object element is stored unchanged. Elements that are not objects are rejected with a reason; the rest are stored.',
});

const DeviceBody = z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).meta({
  description: 'As JSON: one object, or an array of objects. Also accepted: NDJSON (`application/x-ndjson`, `application/ndjson`, `application/jsonl`, `application/x-jsonlines`), '
    + 'CSV with a header line (`text/csv`, `application/csv`) and a form (`application/x-www-form-urlencoded`, one element); JSON or NDJSON in a `text/plain`, untyped or form-labelled body is recognised. At most 256 KiB.',
});

// Usage

const LimitRow = z.object({
  value: z.int(),
  current: z.int(),
  headroom: z.int(),
  over_limit: z.boolean(),
  enforcement: z.string().meta({ description: 'How the limit is enforced.' }),
});

const Measured = {
  measured_at: IsoTime.nullable().meta({ description: 'The oldest of the scope\'s catalogs\' latest samples.' }),
  stale_after: IsoTime.nullable(),
  unmetered: z.boolean(),
  unmetered_catalogs: z.int(),
};

const UsageDay = z.object({
  day: z.iso.date(),
  measured_at: IsoTime.nullable(),
  stale_after: IsoTime.nullable(),
  table_bytes: z.int().nullable(),
  blob_bytes: z.int().nullable(),
  bytes: z.int().nullable(),
  objects: z.int().nullable(),
  requests: z.int().nullable(),
  bytes_in: z.int().nullable(),
  bytes_out: z.int().nullable(),
  ingest_bytes: z.int(),
});

const Traffic = z.object({ requests: z.int(), bytes_in: z.int(), bytes_out: z.int() });

const CatalogUsage = z.object({
  warehouse_id: Id,
  name: z.string(),
  project_id: Id,
  project: z.string(),
  tier: z.enum(['public', 'private']),
  my_level: z.enum(['read', 'write']),
  unmetered: z.boolean(),
  footprint: z.object({
    table: z.object({ bytes: z.int(), objects: z.int() }),
    blob: z.object({ bytes: z.int(), objects: z.int() }),
    bytes: z.int(),
    objects: z.int(),
    measured_at: IsoTime,
    stale_after: IsoTime,
    source: z.string(),
    complete: z.boolean(),
  }).nullable(),
  days: z.array(UsageDay).meta({ description: 'One row per UTC day of the window, oldest first.' }),
  trend: z.object({
    from: z.iso.date().nullable(),
    to: z.iso.date().nullable(),
    bytes_change: z.int().nullable(),
    direction: z.enum(['up', 'down', 'flat']).nullable(),
  }),
  totals: z.object({ ingest_bytes: z.int(), requests: z.int().nullable(), bytes_in: z.int().nullable(), bytes_out: z.int().nullable() }),
  traffic: Traffic.nullable(),
  traffic_note: z.string().optional(),
}).meta({ id: 'UsageCatalog' });

const UsageQuery = z.object({
  project_id: z.string().optional().meta({ description: 'One project (id or name): its organisation\'s limits, its catalogs.' }),
  org_id: z.string().optional().meta({ description: 'The organisation (id or handle) when you belong to several (400 `org_required` otherwise).' }),
  days: z.string().regex(/^\d+$/).optional().meta({ description: 'Days of history, 1 to 30 (default 7).' }),
});

// Audit

const AuditEventRow = z.object({
  id: z.string(),
  action: z.string(),
  actor_id: z.string().nullable(),
  actor_kind: z.string().nullable(),
  org_id: z.string().nullable(),
  target_type: z.string().nullable(),
  target_id: z.string().nullable(),
  request_id: z.string().nullable(),
  data: z.record(z.string(), z.unknown()),
  created_at: IsoTime,
}).meta({ id: 'AuditEvent' });

const AuditQuery = z.object({
  since: z.string().optional().meta({ description: 'A span back from now (`24h`, `7d`, `30m`; s, m, h or d) or an ISO 8601 time.' }),
  action: z.string().optional().meta({ description: 'An exact action (`warehouse.create`) or a prefix ending in `*` (`sink.*`).' }),
  limit: z.string().regex(/^\d+$/).optional().meta({ description: 'At most this many events, 1 to 1000 (default 100).' }),
  org_id: z.string().optional().meta({ description: 'An organisation you belong to (id or handle): an admin reads its events besides their own; a member still only their own.' }),
});

// Operator

const LIMIT_NAMES = ['storage_bytes', 'public_storage_bytes', 'objects', 'projects', 'warehouses', 'warehouses_per_project', 'device_sinks', 'pending_invitations'] as const;
const LimitName = z.enum(LIMIT_NAMES);
const PlanName = z.enum(['free', 'custom']);

const limitsOf = <T extends z.ZodType>(value: T) => z.object(Object.fromEntries(LIMIT_NAMES.map((k) => [k, value])) as Record<(typeof LIMIT_NAMES)[number], T>);

const LimitNumbers = limitsOf(z.int());
const Overrides = limitsOf(z.int().optional()).meta({ description: 'The operator\'s overrides of the plan\'s numbers.' });

const LimitsChange = z.object({
  id: z.string(),
  actor_id: z.string().nullable(),
  at: IsoTime,
  plan: PlanName,
  previous_plan: PlanName,
  overrides: Overrides,
  previous_overrides: Overrides,
  note: z.string().nullable(),
}).meta({ id: 'OrgLimitsChange' });

const OrgLimits = z.object({
  org_id: Id,
  handle: z.string(),
  name: z.string(),
  plan: PlanName,
  overrides: Overrides,
  limits: limitsOf(z.object({ value: z.int(), enforcement: z.string() })).meta({ description: 'The effective limits: the plan\'s numbers with the overrides laid over them.' }),
  note: z.string().nullable(),
  updated_at: IsoTime.nullable(),
  updated_by: z.string().nullable(),
  changes: z.array(LimitsChange).meta({ description: 'The last ten changes, newest first.' }),
});

const QuotaReset = z.object({
  limit_value: z.int(),
  set: z.array(z.string()).meta({ description: 'Buckets whose hard quota was set.' }),
  errors: z.array(z.object({ bucket: z.string(), error: z.string() })),
}).nullable();

const OrgParams = z.object({ org_id: z.string().min(1).meta({ description: 'The organisation\'s id or handle' }) });

const OPERATOR_NOTE = 'Not public by default: the gateway routes /v1/admin only where the deployment sets FLOE_ADMIN_ROUTES_PUBLIC (404 `not_found` otherwise). '
  + 'Only a principal of kind `operator` passes; everyone else (people, admins, tokens) is 403 `forbidden`.';

const SINKS_OFF = 'While sinks are switched off for the deployment, 404 `not_found` before any credential is looked at.';
const REAUTH = 'From a login session whose password was typed over 10 minutes ago: 401 `reauth_required` (API keys are never asked).';

export const sinksUsage = {
  tag: 'Sinks, usage and audit',
  description: 'Ingest sinks (an append-only feed into one unpartitioned table: JSON sends with a send key, device posts to a secret URL, '
    + 'rolled into the table by Floe), your scope\'s usage and limits, the audit log, and the operator\'s routes for plans and organisation limits.',
  operations: operations([
    // --- Sinks: the records (control plane) -------------------------------
    {
      method: 'post', path: '/v1/sinks', id: 'createSink', service: 'control-plane',
      summary: 'Make a sink on an unpartitioned table (its send key is shown once)',
      description: 'Write level on the catalog. One sink per existing, unpartitioned table; nothing is written to the table or the storage identity at creation: '
        + 'the first roll adds the optional `__ingest_ts` column and metadata-retention properties. The roller appends waiting data every `roll_seconds`, '
        + `or sooner when \`roll_bytes\` or \`inactivity_seconds\` say so. ${REAUTH} ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      body: CreateSinkBody,
      responses: {
        201: {
          description: 'The sink, with its send key this once.',
          schema: SinkRow.extend({
            send_key: z.string().meta({ description: 'The send key (`Authorization: Bearer …` on the send route only); only a hash is kept.' }),
            send_key_note: z.string(),
          }),
        },
      },
      errors: [
        'invalid_value', 'missing_field', 'bad_name', 'reauth_required', 'insufficient_scope', 'forbidden',
        'warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted', 'ambiguous_name', 'namespace_not_found', 'table_not_found',
        'sink_exists', 'already_exists', 'partitioned_table_unsupported', 'catalog_error', 'not_found',
      ],
    },
    {
      method: 'get', path: '/v1/sinks', id: 'listSinks', service: 'control-plane',
      summary: 'List the sinks of the catalogs you read (never a key)',
      description: `Oldest first; deleted sinks only with \`include_deleted=true\`. ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      query: z.object({
        warehouse: z.string().optional().meta({ description: 'Only this catalog\'s sinks (id or name); read level needed.' }),
        warehouse_id: z.string().optional().meta({ description: 'The same as `warehouse`; `warehouse` wins when both are given.' }),
        include_deleted: z.enum(['true', 'false']).optional().meta({ description: '`true` adds deleted sinks.' }),
      }),
      responses: {
        200: { description: 'The sinks.', schema: z.object({ count: z.int(), sinks: z.array(SinkRow), note: z.string() }) },
      },
      errors: ['warehouse_not_found', 'warehouse_deleting', 'warehouse_deleted', 'ambiguous_name', 'forbidden', 'not_found'],
    },
    {
      method: 'get', path: '/v1/sinks/{sink_id}', id: 'getSink', service: 'control-plane',
      summary: 'Read a sink: its settings, lag, intake, rolls and rejects',
      description: `Read level on its catalog. ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      responses: { 200: { description: 'The sink.', schema: SinkRow } },
      errors: ['sink_not_found', 'ambiguous_name', 'not_found'],
    },
    {
      method: 'patch', path: '/v1/sinks/{sink_id}', id: 'changeSink', service: 'control-plane',
      summary: 'Rename a sink, change its roll settings, disable or enable it',
      description: 'Write level. Every asked value is written at once or none is; asking what is already so changes (and audits) nothing. '
        + 'Enabling clears your own disabling at once, and the roller\'s `table_missing` only once the table is there again and unpartitioned; '
        + `any other reason answers 409 \`sink_disabled\`. ${REAUTH} ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      body: ChangeSinkBody.strict().meta({ description: 'One or more of these fields.' }),
      responses: {
        200: {
          description: 'The sink as changed, what changed and what it replaced.',
          schema: SinkRow.extend({
            updated: z.array(SettingName).meta({ description: 'The settings this change altered (empty when every asked value was already so).' }),
            previous: z.object({
              name: z.string().optional(),
              roll_seconds: z.int().optional(),
              roll_bytes: z.int().optional(),
              inactivity_seconds: z.int().nullable().optional(),
              enabled: z.boolean().optional(),
              disabled_reason: z.string().nullable().optional(),
            }).meta({ description: 'The replaced values of the altered settings.' }),
          }),
        },
      },
      errors: [
        'invalid_value', 'missing_field', 'bad_name', 'reauth_required', 'insufficient_scope', 'sink_not_found', 'ambiguous_name', 'forbidden',
        'already_exists', 'sink_disabled', 'namespace_not_found', 'table_not_found', 'partitioned_table_unsupported', 'catalog_error', 'not_found',
      ],
    },
    {
      method: 'delete', path: '/v1/sinks/{sink_id}', id: 'deleteSink', service: 'control-plane',
      summary: 'Delete a sink (its send key is refused at once; the table is untouched)',
      description: `Write level. Waiting batches are discarded at the roller's next tick; reject files age out after 7 days. ${REAUTH} ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      responses: {
        202: {
          description: 'Deleted (`state: deleted`, `deleted_at`).',
          schema: SinkRow.extend({ pending_batches_discarded: z.int(), note: z.string() }),
        },
      },
      errors: ['reauth_required', 'insufficient_scope', 'sink_not_found', 'ambiguous_name', 'forbidden', 'not_found'],
    },
    {
      method: 'post', path: '/v1/sinks/{sink_id}/test', id: 'testSinkBody', service: 'control-plane',
      summary: 'Dry-run a device body against the sink\'s options and the table\'s schema',
      description: 'Read level. The body is read as the device route reads it (JSON, NDJSON, CSV or form, up to 256 KiB), the sink\'s device options are applied, '
        + `and the rows are checked against the table's current schema as the next roll would. Nothing is stored and no rate allowance is used. ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      body: DeviceBody,
      responses: {
        200: {
          description: 'What the device route and the next roll would do with this body.',
          schema: z.object({
            sink_id: Id,
            table: z.string(),
            format: z.enum(['json', 'ndjson', 'csv', 'form']),
            elements: z.int(),
            accepted: z.int(),
            rejected: z.int(),
            reasons: z.array(z.object({
              index: z.int(), reason: z.string(), got: z.string(), stage: z.enum(['intake', 'schema']),
            })),
            device_secret: z.enum(['not_pinned', 'mismatch', 'ok']),
            device_answer: z.union([
              z.object({ status: z.literal(401), code: z.literal('invalid_device_secret') }),
              z.object({ status: z.literal(202) }),
            ]),
            stored_lines: z.array(z.string()).meta({ description: 'The first (at most 5) NDJSON lines the device route would store.' }),
            columns: z.array(z.object({ name: z.string(), type: z.string(), required: z.boolean() })),
            options: DeviceOptionsView,
            stored: z.literal(false),
            note: z.string(),
          }),
        },
      },
      errors: [
        'insufficient_scope', 'sink_not_found', 'ambiguous_name', 'body_too_large', 'unreadable_body', 'unsupported_media_type',
        'namespace_not_found', 'table_not_found', 'catalog_error', 'not_found',
      ],
    },
    {
      method: 'post', path: '/v1/sinks/{sink_id}/device-token', id: 'issueSinkDeviceToken', service: 'control-plane',
      summary: 'Mint or replace a sink\'s device token and its options (the URL is shown once)',
      description: 'Write level. The device URL carries the token and is the credential; only its hash is kept, and a new token replaces the old at once. '
        + `A sink that did not take device posts before counts against the plan's \`device_sinks\` (409 \`limit_exceeded\`). ${REAUTH} ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      body: SinkDeviceTokenBody,
      responses: {
        201: {
          description: 'The device URL and token, this once.',
          schema: z.object({
            sink_id: Id,
            name: z.string(),
            device_url: z.string().meta({ description: '`{ingest_url}/d/<token>`' }),
            device_token: z.string(),
            replaced: z.boolean(),
            options: DeviceOptionsView,
            rate: z.object({ posts_per_minute: z.int(), burst: z.int() }),
            body_limit_bytes: z.int(),
            formats: z.array(z.string()),
            created_at: IsoTime,
            note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'reauth_required', 'insufficient_scope', 'sink_not_found', 'ambiguous_name', 'forbidden', 'sink_disabled', 'limit_exceeded', 'not_found'],
    },
    {
      method: 'delete', path: '/v1/sinks/{sink_id}/device-token', id: 'removeSinkDeviceToken', service: 'control-plane',
      summary: 'Remove a sink\'s device token (its URL is refused from then on)',
      description: `Write level. ${REAUTH} ${SINKS_OFF}`,
      auth: ['api_key', 'session', 'oauth'],
      params: SinkParams,
      responses: {
        200: {
          description: 'Removed, or there was none (`removed: false`).',
          schema: z.object({ sink_id: Id, name: z.string(), removed: z.boolean(), note: z.string() }),
        },
      },
      errors: ['reauth_required', 'insufficient_scope', 'sink_not_found', 'ambiguous_name', 'forbidden', 'not_found'],
    },

    // --- Sinks: intake (ingest gateway) -----------------------------------
    {
      method: 'post', path: '/v1/sinks/{sink_id}', id: 'sendToSink', service: 'ingest-gateway',
      summary: 'Send a batch of rows to a sink (the send route)',
      description: 'Auth: `Authorization: Bearer <send key>`, the sink\'s own key only (an API key or token is 403 `send_only`). '
        + 'Header `Idempotency-Key: <batch id>` (required; 1-128 letters, digits, `.`, `_`, `:`, `-`): the batch id, accepted once — the same id again answers 200 '
        + 'with `duplicate: true` and writes nothing. `Content-Type: application/json` only (NDJSON and other types are 415 `unsupported_media_type`); '
        + 'body up to 16 MiB (413 `batch_too_large`). The object elements are stored unchanged as one NDJSON object in the blob bucket with one storage PUT and no '
        + 'catalog call; schema fit is decided at the roll and shows in the sink\'s rejects. Intake bytes are metered as `ingest_bytes`. '
        + 'A 502 `storage_error` (with `Retry-After`) is safe to retry with the same batch id. '
        + 'A deleted sink, or one whose catalog is being deleted, is 404 `sink_not_found`. '
        + `${SINKS_OFF} Reached through the public gateway, which answers 503 \`service_unavailable\` while the ingest gateway is not answering.`,
      auth: ['send_key'],
      params: z.object({ sink_id: Id.meta({ description: 'The sink\'s id (`snk_…`); its name is not taken here' }) }),
      body: SendBody,
      responses: {
        202: {
          description: 'Stored; the roller appends it at the next roll (`state: committed` at once when no element was an object).',
          schema: z.object({
            accepted: z.int(),
            rejected: z.int(),
            reasons: z.array(z.object({ index: z.int(), reason: z.literal('not an object'), got: ElementKind.exclude(['object']) })),
            batch_id: z.string(),
            sink_id: Id,
            bytes: z.int().meta({ description: 'Bytes of the NDJSON object stored.' }),
            received_at: IsoTime,
            state: BatchState,
            note: z.string(),
          }),
        },
        200: { description: 'A batch already received (the same `Idempotency-Key`).', schema: BatchDuplicate },
      },
      errors: [
        'missing_idempotency_key', 'invalid_batch_id', 'not_an_array', 'empty_batch', 'invalid_key', 'send_only', 'sink_not_found', 'not_found',
        'sink_disabled', 'quota_exceeded', 'batch_too_large', 'unsupported_media_type', 'storage_error', 'service_unavailable',
      ],
    },
    {
      method: 'post', path: '/d/{token}', id: 'postDeviceBatch', service: 'ingest-gateway',
      summary: 'Post rows from a device to its sink (the device route, on {ingest_url})',
      description: 'Served on `{ingest_url}` (plain HTTP accepted; a device that posts to the API host is redirected there with 308, or passed on where both share one host). '
        + 'The URL is the credential: no header needed. Form, JSON, NDJSON or CSV bodies up to 256 KiB; the sink\'s device options (required field, pinned value, '
        + 'stripped fields, mapping preset) are applied to each element. An identical repeated post is a duplicate (the batch id is the body\'s content hash) and answers 200. '
        + 'A pinned field missing or wrong in any element refuses the whole post, 401 `invalid_device_secret`. 6 posts per minute per sink sustained, bursts of 30 '
        + '(429 `rate_limited` with `Retry-After`). An unknown, replaced or removed token, or a deleted sink\'s, is 401 `invalid_device_token`; a sink whose catalog '
        + `is being deleted is 404 \`sink_not_found\`. A 502 \`storage_error\` is safe to retry. ${SINKS_OFF}`,
      auth: ['device_token'],
      params: z.object({ token: z.string().min(1).meta({ description: 'The sink\'s device token, from POST /v1/sinks/{sink_id}/device-token' }) }),
      body: DeviceBody,
      responses: {
        202: {
          description: 'Stored; the roller appends it at the next roll.',
          schema: z.object({
            accepted: z.int(),
            rejected: z.int(),
            reasons: z.array(z.object({ index: z.int(), reason: z.string(), got: z.enum([...ElementKind.options, 'invalid json', 'csv record']) })),
            batch_id: z.string().meta({ description: '`d_` and the body\'s content hash.' }),
            sink_id: Id,
            bytes: z.int(),
            received_at: IsoTime,
            state: BatchState,
            format: z.enum(['json', 'ndjson', 'csv', 'form']),
          }),
        },
        200: { description: 'The same body was posted before.', schema: BatchDuplicate },
      },
      errors: [
        'unreadable_body', 'invalid_device_token', 'invalid_device_secret', 'sink_not_found', 'not_found', 'sink_disabled', 'quota_exceeded',
        'body_too_large', 'unsupported_media_type', 'rate_limited', 'storage_error',
      ],
    },

    // --- Usage and audit --------------------------------------------------
    {
      method: 'get', path: '/v1/usage', id: 'getUsage', service: 'control-plane',
      summary: 'Your scope\'s limits with current values, and per catalog its footprint by day',
      description: 'The scope is your organisation (or, outside any, your own projects): every limit with its current value and headroom. '
        + 'Per catalog you can read in the scope: the footprint, one row per UTC day of the window, and the traffic once metered. '
        + 'Storage is metered hourly; every storage figure carries `measured_at` and `stale_after`.',
      auth: ['api_key', 'session', 'oauth'],
      query: UsageQuery,
      responses: {
        200: {
          description: 'The scope\'s limits and its catalogs\' usage.',
          schema: z.object({
            scope: z.enum(['organization', 'project']),
            org_id: Id.nullable(),
            project_id: Id.nullable(),
            plan: PlanName,
            days: z.int(),
            window: z.object({ from: z.iso.date(), to: z.iso.date() }),
            limits: z.object({
              projects: LimitRow,
              warehouses: LimitRow,
              warehouses_per_project: LimitRow.extend({
                per_project: z.array(z.object({ project_id: Id, name: z.string(), current: z.int(), headroom: z.int() })),
              }),
              storage_bytes: LimitRow.extend(Measured),
              public_storage_bytes: LimitRow.extend(Measured),
              objects: LimitRow.extend(Measured),
              device_sinks: LimitRow,
              pending_invitations: LimitRow,
            }),
            warehouses: z.array(CatalogUsage),
            traffic_note: z.string().optional(),
            note: z.string(),
          }),
        },
      },
      errors: ['invalid_value', 'project_not_found', 'ambiguous_name', 'org_not_found', 'org_required'],
    },
    {
      method: 'get', path: '/v1/audit', id: 'listAuditEvents', service: 'control-plane',
      summary: 'Read the audit log: your own events, or as an admin your organisation\'s',
      description: 'Without `org_id`: your own events (`scope: own`); an admin of an organisation is told where its events are (`admin_of`, `note`). '
        + 'With `org_id`: an admin reads the organisation\'s events besides their own (`scope: organisation`); a member still only their own. Newest first.',
      auth: ['api_key', 'session', 'oauth'],
      query: AuditQuery,
      responses: {
        200: {
          description: 'The events under the filters, with the filters as understood.',
          schema: z.object({
            events: z.array(AuditEventRow),
            count: z.int(),
            since: IsoTime.nullable(),
            limit: z.int(),
            org_id: Id.nullable(),
            scope: z.enum(['own', 'organisation']),
            admin_of: z.array(z.object({ org_id: Id, handle: z.string() })).optional()
              .meta({ description: 'Without `org_id`, when you are an admin somewhere: the organisations whose events you can ask for.' }),
            note: z.string().optional().meta({ description: 'With `admin_of`: how to ask for an organisation\'s events.' }),
          }),
        },
      },
      errors: ['invalid_value', 'org_not_found'],
    },

    // --- Operator ---------------------------------------------------------
    {
      method: 'get', path: '/v1/admin/plans', id: 'listPlans', service: 'control-plane',
      summary: 'The plans, their limits, and how each limit is enforced (operator)',
      description: OPERATOR_NOTE,
      auth: ['api_key'],
      responses: {
        200: {
          description: 'The plans.',
          schema: z.object({
            plans: z.object({
              free: z.object({ name: z.literal('free'), limits: LimitNumbers }),
              custom: z.object({ name: z.literal('custom'), limits: LimitNumbers }),
            }),
            override_names: z.array(LimitName),
            enforcement: limitsOf(z.string()),
            default_plan: z.literal('free'),
          }),
        },
      },
      errors: ['forbidden', 'not_found'],
    },
    {
      method: 'get', path: '/v1/admin/orgs/{org_id}/limits', id: 'getOrgLimits', service: 'control-plane',
      summary: 'An organisation\'s plan, overrides and effective limits (operator)',
      description: OPERATOR_NOTE,
      auth: ['api_key'],
      params: OrgParams,
      responses: { 200: { description: 'The organisation\'s limits and its last ten changes.', schema: OrgLimits } },
      errors: ['forbidden', 'org_not_found', 'not_found'],
    },
    {
      method: 'patch', path: '/v1/admin/orgs/{org_id}/limits', id: 'changeOrgLimits', service: 'control-plane',
      summary: 'Change an organisation\'s plan, overrides or note (operator)',
      description: `${OPERATOR_NOTE} An override of \`null\` removes it. A changed storage limit re-sets the hard quota of every live private bucket of the organisation `
        + 'at once, a changed public allowance that of every public catalog\'s table bucket (a bucket the store refuses is reported in `errors`, not fatal).',
      auth: ['api_key'],
      params: OrgParams,
      body: ChangeOrgLimitsBody,
      responses: {
        200: {
          description: 'The organisation\'s limits after the change, the change, and the bucket quotas re-set.',
          schema: OrgLimits.extend({
            change: LimitsChange,
            changed: z.array(LimitName).meta({ description: 'The effective limits this change altered.' }),
            bucket_quotas: QuotaReset,
            public_bucket_quotas: QuotaReset,
            note_on_enforcement: z.string(),
          }),
        },
      },
      errors: ['forbidden', 'invalid_value', 'org_not_found', 'not_found'],
    },
    {
      method: 'get', path: '/v1/admin/orgs/{org_id}/limits/audit', id: 'listOrgLimitsChanges', service: 'control-plane',
      summary: 'The operator\'s changes of an organisation\'s limits, newest first (operator)',
      description: OPERATOR_NOTE,
      auth: ['api_key'],
      params: OrgParams,
      query: z.object({ limit: z.string().regex(/^\d+$/).optional().meta({ description: 'At most this many changes, 1 to 1000 (default 100).' }) }),
      responses: {
        200: {
          description: 'The changes.',
          schema: z.object({ org_id: Id, handle: z.string(), changes: z.array(LimitsChange), count: z.int(), limit: z.int() }),
        },
      },
      errors: ['forbidden', 'invalid_value', 'org_not_found', 'not_found'],
    },
  ]),
};
