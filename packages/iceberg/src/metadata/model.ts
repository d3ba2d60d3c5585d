// Table metadata JSON exactly as the Iceberg spec (Appendix C) and the REST OpenAPI write
// it: kebab-case keys, v1 legacy fields (`schema`, `partition-spec`) kept when present.
//
// Number representation, one rule everywhere: a spec `long` is a `bigint`, a spec `int`
// is a `number`. Longs are ids, sequence numbers, row ids, timestamps and sizes; keeping
// all of them as bigint means no caller ever has to guess which ones may exceed 2^53.
// Input may give small longs as JS numbers (they are exact); a `number` beyond 2^53 is
// refused because it has already been rounded by whoever parsed it. Feed JSON text
// through `parseJson` (json.ts) so large literals arrive as bigints.
//
// Every object is a zod `looseObject`: keys this model does not know (future spec
// fields, writer extensions) pass through untouched and are written back out.

import { z } from 'zod';
import { parseJson, stringifyJson, type JsonValue } from './json';
import { parsePrimitiveType } from './types';

export const SUPPORTED_FORMAT_VERSIONS = [1, 2, 3] as const;
export type FormatVersion = (typeof SUPPORTED_FORMAT_VERSIONS)[number];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A spec `int`. */
export const zInt = z.number().int().min(-2147483648).max(2147483647);

/** A spec `long`, always produced as bigint. */
export const zLong = z
  .union([z.bigint(), z.number()])
  .superRefine((v, ctx) => {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) {
      ctx.addIssue({
        code: 'custom',
        message: Number.isInteger(v)
          ? `long ${v} is beyond 2^53 as a JS number and may already be rounded; parse the JSON with parseJson`
          : `expected an integer, got ${v}`,
      });
    } else if (typeof v === 'bigint' && (v < INT64_MIN || v > INT64_MAX)) {
      ctx.addIssue({ code: 'custom', message: `long ${v} is outside the 64-bit range` });
    }
  })
  .transform((v) => BigInt(v));

export const zStringMap = z.record(z.string(), z.string());
const zJsonValue = z.custom<JsonValue>(() => true);

// ---------------------------------------------------------------- types and schemas

export type PrimitiveType = string;

export interface StructField {
  id: number;
  name: string;
  required: boolean;
  type: IcebergType;
  doc?: string;
  'initial-default'?: JsonValue;
  'write-default'?: JsonValue;
  [key: string]: unknown;
}

export interface StructType {
  type: 'struct';
  fields: StructField[];
  [key: string]: unknown;
}

export interface ListType {
  type: 'list';
  'element-id': number;
  element: IcebergType;
  'element-required': boolean;
  [key: string]: unknown;
}

export interface MapType {
  type: 'map';
  'key-id': number;
  key: IcebergType;
  'value-id': number;
  value: IcebergType;
  'value-required': boolean;
  [key: string]: unknown;
}

export type IcebergType = PrimitiveType | StructType | ListType | MapType;

export const PrimitiveTypeSchema = z.string().refine((s) => parsePrimitiveType(s) !== null, {
  error: (issue) => `unknown primitive type ${JSON.stringify(issue.input)}`,
});

export const IcebergTypeSchema: z.ZodType<IcebergType> = z.lazy(() =>
  z.union([PrimitiveTypeSchema, StructTypeSchema, ListTypeSchema, MapTypeSchema]),
);

export const StructFieldSchema: z.ZodType<StructField> = z.lazy(() =>
  z.looseObject({
    id: zInt,
    name: z.string(),
    required: z.boolean(),
    type: IcebergTypeSchema,
    doc: z.string().optional(),
    'initial-default': zJsonValue.optional(),
    'write-default': zJsonValue.optional(),
  }),
);

export const StructTypeSchema: z.ZodType<StructType> = z.lazy(() =>
  z.looseObject({ type: z.literal('struct'), fields: z.array(StructFieldSchema) }),
);

export const ListTypeSchema: z.ZodType<ListType> = z.lazy(() =>
  z.looseObject({
    type: z.literal('list'),
    'element-id': zInt,
    element: IcebergTypeSchema,
    'element-required': z.boolean(),
  }),
);

export const MapTypeSchema: z.ZodType<MapType> = z.lazy(() =>
  z.looseObject({
    type: z.literal('map'),
    'key-id': zInt,
    key: IcebergTypeSchema,
    'value-id': zInt,
    value: IcebergTypeSchema,
    'value-required': z.boolean(),
  }),
);

export interface Schema {
  type: 'struct';
  'schema-id'?: number;
  'identifier-field-ids'?: number[];
  fields: StructField[];
  [key: string]: unknown;
}

export const SchemaSchema: z.ZodType<Schema> = z.looseObject({
  type: z.literal('struct'),
  'schema-id': zInt.optional(),
  'identifier-field-ids': z.array(zInt).optional(),
  fields: z.array(StructFieldSchema),
});

// ---------------------------------------------------------------- partitioning, sorting

const withSource = <T extends { 'source-id'?: number; 'source-ids'?: number[] }>(v: T) =>
  v['source-id'] !== undefined || (v['source-ids'] !== undefined && v['source-ids'].length > 0);
const sourceMessage = { message: 'a field needs source-id or source-ids' };

export const PartitionFieldSchema = z
  .looseObject({
    'source-id': zInt.optional(),
    'source-ids': z.array(zInt).optional(),
    'field-id': zInt.optional(),
    name: z.string(),
    transform: z.string(),
  })
  .refine(withSource, sourceMessage);
export type PartitionField = z.output<typeof PartitionFieldSchema>;

export const PartitionSpecSchema = z.looseObject({
  'spec-id': zInt.optional(),
  fields: z.array(PartitionFieldSchema),
});
export type PartitionSpec = z.output<typeof PartitionSpecSchema>;

export const SortFieldSchema = z
  .looseObject({
    transform: z.string(),
    'source-id': zInt.optional(),
    'source-ids': z.array(zInt).optional(),
    direction: z.enum(['asc', 'desc']),
    'null-order': z.enum(['nulls-first', 'nulls-last']),
  })
  .refine(withSource, sourceMessage);
export type SortField = z.output<typeof SortFieldSchema>;

export const SortOrderSchema = z.looseObject({
  'order-id': zInt.optional(),
  fields: z.array(SortFieldSchema),
});
export type SortOrder = z.output<typeof SortOrderSchema>;

// ---------------------------------------------------------------- snapshots and refs

export const SnapshotSchema = z.looseObject({
  'snapshot-id': zLong,
  'parent-snapshot-id': zLong.nullish(),
  'sequence-number': zLong.optional(),
  'timestamp-ms': zLong,
  'manifest-list': z.string().optional(),
  manifests: z.array(z.string()).optional(),
  // v1 allows no summary; Java reads a summary without `operation` as an overwrite.
  summary: zStringMap.optional(),
  'schema-id': zInt.nullish(),
  'first-row-id': zLong.nullish(),
  'added-rows': zLong.nullish(),
  'key-id': z.string().nullish(),
});
export type Snapshot = z.output<typeof SnapshotSchema>;

export const SnapshotRefSchema = z.looseObject({
  'snapshot-id': zLong,
  type: z.enum(['branch', 'tag']),
  'min-snapshots-to-keep': zInt.nullish(),
  'max-snapshot-age-ms': zLong.nullish(),
  'max-ref-age-ms': zLong.nullish(),
});
export type SnapshotRef = z.output<typeof SnapshotRefSchema>;

export const SnapshotLogEntrySchema = z.looseObject({
  'timestamp-ms': zLong,
  'snapshot-id': zLong,
});
export type SnapshotLogEntry = z.output<typeof SnapshotLogEntrySchema>;

export const MetadataLogEntrySchema = z.looseObject({
  'timestamp-ms': zLong,
  'metadata-file': z.string(),
});
export type MetadataLogEntry = z.output<typeof MetadataLogEntrySchema>;

// ---------------------------------------------------------------- statistics, keys

export const BlobMetadataSchema = z.looseObject({
  type: z.string(),
  'snapshot-id': zLong,
  'sequence-number': zLong,
  fields: z.array(zInt),
  properties: zStringMap.optional(),
});
export type BlobMetadata = z.output<typeof BlobMetadataSchema>;

export const StatisticsFileSchema = z.looseObject({
  'snapshot-id': zLong,
  'statistics-path': z.string(),
  'file-size-in-bytes': zLong,
  'file-footer-size-in-bytes': zLong,
  'key-metadata': z.string().nullish(),
  'blob-metadata': z.array(BlobMetadataSchema),
});
export type StatisticsFile = z.output<typeof StatisticsFileSchema>;

export const PartitionStatisticsFileSchema = z.looseObject({
  'snapshot-id': zLong,
  'statistics-path': z.string(),
  'file-size-in-bytes': zLong,
});
export type PartitionStatisticsFile = z.output<typeof PartitionStatisticsFileSchema>;

export const EncryptedKeySchema = z.looseObject({
  'key-id': z.string(),
  'encrypted-key-metadata': z.string(),
  'encrypted-by-id': z.string().nullish(),
  properties: zStringMap.nullish(),
});
export type EncryptedKey = z.output<typeof EncryptedKeySchema>;

// ---------------------------------------------------------------- table metadata

const FormatVersionSchema = z
  .number()
  .refine((v): v is FormatVersion => (SUPPORTED_FORMAT_VERSIONS as readonly number[]).includes(v), {
    error: (issue) => `unsupported format version ${String(issue.input)} (supported: 1, 2, 3)`,
  });

// Key order is the order the Java reference writer uses; serialisation follows it.
const TableMetadataShape = z.looseObject({
  'format-version': FormatVersionSchema,
  'table-uuid': z.string().optional(),
  location: z.string(),
  'last-sequence-number': zLong.optional(),
  'last-updated-ms': zLong,
  'last-column-id': zInt,
  schema: SchemaSchema.optional(),
  'current-schema-id': zInt.optional(),
  schemas: z.array(SchemaSchema).optional(),
  'partition-spec': z.array(PartitionFieldSchema).optional(),
  'default-spec-id': zInt.optional(),
  'partition-specs': z.array(PartitionSpecSchema).optional(),
  'last-partition-id': zInt.optional(),
  'default-sort-order-id': zInt.optional(),
  'sort-orders': z.array(SortOrderSchema).optional(),
  properties: zStringMap.optional(),
  // Java writes -1 for "no current snapshot" in v1/v2 and null in v3; both mean none.
  'current-snapshot-id': zLong.nullish(),
  'next-row-id': zLong.optional(),
  'encryption-keys': z.array(EncryptedKeySchema).optional(),
  refs: z.record(z.string(), SnapshotRefSchema).optional(),
  snapshots: z.array(SnapshotSchema).optional(),
  statistics: z.array(StatisticsFileSchema).optional(),
  'partition-statistics': z.array(PartitionStatisticsFileSchema).optional(),
  'snapshot-log': z.array(SnapshotLogEntrySchema).optional(),
  'metadata-log': z.array(MetadataLogEntrySchema).optional(),
});

/** Known top-level keys in writer order; unknown keys follow them. */
export const TABLE_METADATA_KEY_ORDER = Object.keys(TableMetadataShape.shape);

export const TableMetadataSchema = TableMetadataShape.superRefine((m, ctx) => {
  const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
  const v = m['format-version'];
  if (v >= 2) {
    for (const key of [
      'table-uuid', 'last-sequence-number', 'schemas', 'current-schema-id', 'partition-specs',
      'default-spec-id', 'last-partition-id', 'sort-orders', 'default-sort-order-id',
    ] as const) {
      if (m[key] === undefined) issue(`${key} is required in format v${v}`);
    }
  }
  if (v >= 3 && m['next-row-id'] === undefined) issue(`next-row-id is required in format v${v}`);
  if (m.schemas === undefined && m.schema === undefined) issue('schemas (or v1 schema) is required');
  if (m.schemas !== undefined) {
    if (m['current-schema-id'] === undefined) issue('current-schema-id is required with schemas');
    else if (!m.schemas.some((s) => s['schema-id'] === m['current-schema-id'])) {
      issue(`current-schema-id ${m['current-schema-id']} is not in schemas`);
    }
  }
  if (m['partition-specs'] === undefined && m['partition-spec'] === undefined) {
    issue('partition-specs (or v1 partition-spec) is required');
  }
  if (m['partition-specs'] !== undefined && m['default-spec-id'] !== undefined) {
    if (!m['partition-specs'].some((s) => s['spec-id'] === m['default-spec-id'])) {
      issue(`default-spec-id ${m['default-spec-id']} is not in partition-specs`);
    }
  }
  if (m['sort-orders'] !== undefined && m['default-sort-order-id'] !== undefined) {
    if (!m['sort-orders'].some((o) => o['order-id'] === m['default-sort-order-id'])) {
      issue(`default-sort-order-id ${m['default-sort-order-id']} is not in sort-orders`);
    }
  }
});
export type TableMetadata = z.output<typeof TableMetadataSchema>;

// ---------------------------------------------------------------- TableUpdate (REST)

const update = <A extends string, S extends z.core.$ZodLooseShape>(action: A, shape: S) =>
  z.looseObject({ action: z.literal(action), ...shape });

export const TableUpdateSchema = z.discriminatedUnion('action', [
  update('assign-uuid', { uuid: z.string() }),
  update('upgrade-format-version', { 'format-version': z.number().int() }),
  update('add-schema', { schema: SchemaSchema, 'last-column-id': zInt.optional() }),
  update('set-current-schema', { 'schema-id': zInt }),
  update('add-spec', { spec: PartitionSpecSchema }),
  update('set-default-spec', { 'spec-id': zInt }),
  update('add-sort-order', { 'sort-order': SortOrderSchema }),
  update('set-default-sort-order', { 'sort-order-id': zInt }),
  update('add-snapshot', { snapshot: SnapshotSchema }),
  update('set-snapshot-ref', { 'ref-name': z.string(), ...SnapshotRefSchema.shape }),
  update('remove-snapshots', { 'snapshot-ids': z.array(zLong) }),
  update('remove-snapshot-ref', { 'ref-name': z.string() }),
  update('set-location', { location: z.string() }),
  update('set-properties', { updates: zStringMap }),
  update('remove-properties', { removals: z.array(z.string()) }),
  update('set-statistics', { 'snapshot-id': zLong.nullish(), statistics: StatisticsFileSchema }),
  update('remove-statistics', { 'snapshot-id': zLong }),
  update('set-partition-statistics', { 'partition-statistics': PartitionStatisticsFileSchema }),
  update('remove-partition-statistics', { 'snapshot-id': zLong }),
  update('remove-partition-specs', { 'spec-ids': z.array(zInt) }),
  update('remove-schemas', { 'schema-ids': z.array(zInt) }),
  update('add-encryption-key', { 'encryption-key': EncryptedKeySchema }),
  update('remove-encryption-key', { 'key-id': z.string() }),
]);
export type TableUpdate = z.output<typeof TableUpdateSchema>;
export type TableUpdateAction = TableUpdate['action'];
/** The update of one action, e.g. `TableUpdateOf<'add-snapshot'>`. */
export type TableUpdateOf<A extends TableUpdateAction> = Extract<TableUpdate, { action: A }>;

// ---------------------------------------------------------------- TableRequirement (REST)

const requirement = <T extends string, S extends z.core.$ZodLooseShape>(type: T, shape: S) =>
  z.looseObject({ type: z.literal(type), ...shape });

export const TableRequirementSchema = z.discriminatedUnion('type', [
  requirement('assert-create', {}),
  requirement('assert-table-uuid', { uuid: z.string() }),
  // snapshot-id is required but may be null: null means the ref must not exist.
  requirement('assert-ref-snapshot-id', { ref: z.string(), 'snapshot-id': zLong.nullable() }),
  requirement('assert-last-assigned-field-id', { 'last-assigned-field-id': zInt }),
  requirement('assert-current-schema-id', { 'current-schema-id': zInt }),
  requirement('assert-last-assigned-partition-id', { 'last-assigned-partition-id': zInt }),
  requirement('assert-default-spec-id', { 'default-spec-id': zInt }),
  requirement('assert-default-sort-order-id', { 'default-sort-order-id': zInt }),
]);
export type TableRequirement = z.output<typeof TableRequirementSchema>;

// ---------------------------------------------------------------- parse / serialise

/** Metadata JSON (or a REST body part) that does not match the model. */
export class MetadataParseError extends Error {
  constructor(message: string, readonly issues: readonly z.core.$ZodIssue[] = []) {
    super(message);
    this.name = 'MetadataParseError';
  }
}

/** Validates a value against a model schema; shared with views/ so both fail the same way. */
export function validateModel<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const result = schema.safeParse(value);
  if (!result.success) {
    throw new MetadataParseError(`Invalid ${what}: ${z.prettifyError(result.error)}`, result.error.issues);
  }
  return result.data;
}

/** Lossless `parseJson`, with a syntax error reported as a MetadataParseError like a model mismatch. */
export function parseModelJson(jsonText: string, what: string): JsonValue {
  try {
    return parseJson(jsonText);
  } catch (err) {
    throw new MetadataParseError(`Invalid ${what} JSON: ${(err as Error).message}`);
  }
}

/** Parses metadata JSON text (lossless for 64-bit values) and validates it. */
export function parseTableMetadata(jsonText: string): TableMetadata {
  return toTableMetadata(parseModelJson(jsonText, 'table metadata'));
}

/** Validates an already-parsed JSON value (e.g. from `parseJson`) as table metadata. */
export function toTableMetadata(value: unknown): TableMetadata {
  return validateModel(TableMetadataSchema, value, 'table metadata');
}

/**
 * Writes metadata as compact JSON. Longs are written as exact integer literals; known
 * keys come in the Java writer's order, unknown keys after them.
 */
export function serializeTableMetadata(meta: TableMetadata): string {
  // Validating again refuses to write something no reader could load, and re-emits
  // every nested object in its canonical key order.
  const valid = validateModel(TableMetadataSchema, meta, 'table metadata');
  return stringifyJson(valid);
}

// The parts of a CreateTableRequest that metadata is built from. The schema is
// held to the same model as stored metadata: every field, element, key and
// value id present, as the reference's parser requires, even though the
// catalog then assigns fresh ids (an id-less list would otherwise be given one
// silently, and a client's partition spec could not name its source column).
const CreateTableRequestSchema = z.looseObject({
  name: z.string().min(1).max(255),
  location: z.string().nullish(),
  schema: SchemaSchema,
  'partition-spec': PartitionSpecSchema.nullish(),
  'write-order': SortOrderSchema.nullish(),
  'stage-create': z.boolean().optional(),
  properties: zStringMap.optional(),
});
export type CreateTableRequest = z.output<typeof CreateTableRequestSchema>;

/** Validates a CreateTableRequest (parsed with `parseJson`). */
export function parseCreateTableRequest(value: unknown): CreateTableRequest {
  return validateModel(CreateTableRequestSchema, value, 'create table request');
}

/** Validates the `updates` of a CommitTableRequest (parsed with `parseJson`). */
export function parseTableUpdates(value: unknown): TableUpdate[] {
  return validateModel(z.array(TableUpdateSchema), value, 'table updates');
}

/** Validates the `requirements` of a CommitTableRequest (parsed with `parseJson`). */
export function parseTableRequirements(value: unknown): TableRequirement[] {
  return validateModel(z.array(TableRequirementSchema), value, 'table requirements');
}
