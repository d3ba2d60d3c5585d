// Iceberg VIEW metadata (view spec, format v1) exactly as the spec and the REST OpenAPI
// write it: kebab-case keys; unknown keys pass through (zod looseObject) and are written
// back out. Number rule as for tables: spec `long` (timestamps) is a bigint, spec `int`
// (version ids, schema ids) is a number. Feed JSON text through `parseJson` so large
// literals arrive exactly.

import { z } from 'zod';
import { stringifyJson } from '../metadata/json';
import { parseModelJson, SchemaSchema, validateModel, zInt, zStringMap } from '../metadata/model';

export const VIEW_FORMAT_VERSION = 1;
export const SUPPORTED_VIEW_FORMAT_VERSIONS = [1] as const;
export type ViewFormatVersion = (typeof SUPPORTED_VIEW_FORMAT_VERSIONS)[number];

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

// Not metadata's zLong only because its error wording differs, and view clients see that wording.
const zLong = z
  .union([z.bigint(), z.number()])
  .superRefine((v, ctx) => {
    if (typeof v === 'number' && !Number.isSafeInteger(v)) {
      ctx.addIssue({ code: 'custom', message: `expected an exact integer (parse JSON with parseJson), got ${v}` });
    } else if (typeof v === 'bigint' && (v < INT64_MIN || v > INT64_MAX)) {
      ctx.addIssue({ code: 'custom', message: `long ${v} is outside the 64-bit range` });
    }
  })
  .transform((v) => BigInt(v));

// ---------------------------------------------------------------- versions

/**
 * A view representation. The spec defines only `sql` (sql + dialect required); other
 * types are kept as they are so a future writer's metadata survives a round trip.
 */
export const ViewRepresentationSchema = z
  .looseObject({
    type: z.string(),
    sql: z.string().optional(),
    dialect: z.string().optional(),
  })
  .superRefine((r, ctx) => {
    if (r.type.toLowerCase() === 'sql') {
      if (r.sql === undefined) ctx.addIssue({ code: 'custom', message: 'sql representation requires sql' });
      if (r.dialect === undefined) ctx.addIssue({ code: 'custom', message: 'sql representation requires dialect' });
    }
  });
export type ViewRepresentation = z.output<typeof ViewRepresentationSchema>;

export const ViewVersionSchema = z.looseObject({
  'version-id': zInt,
  'timestamp-ms': zLong,
  /** -1 in an add-view-version update: the schema added last in the same commit. */
  'schema-id': zInt,
  summary: zStringMap,
  representations: z.array(ViewRepresentationSchema),
  'default-catalog': z.string().nullish(),
  'default-namespace': z.array(z.string()),
});
export type ViewVersion = z.output<typeof ViewVersionSchema>;

export const ViewHistoryEntrySchema = z.looseObject({
  'version-id': zInt,
  'timestamp-ms': zLong,
});
export type ViewHistoryEntry = z.output<typeof ViewHistoryEntrySchema>;

// ---------------------------------------------------------------- metadata

const ViewFormatVersionSchema = z
  .number()
  .refine((v): v is ViewFormatVersion => (SUPPORTED_VIEW_FORMAT_VERSIONS as readonly number[]).includes(v), {
    error: (issue) => `unsupported view format version ${String(issue.input)} (supported: 1)`,
  });

// Key order of the Java writer (ViewMetadataParser); serialisation follows it.
const ViewMetadataShape = z.looseObject({
  'view-uuid': z.string(),
  'format-version': ViewFormatVersionSchema,
  location: z.string(),
  properties: zStringMap.optional(),
  schemas: z.array(SchemaSchema),
  'current-version-id': zInt,
  versions: z.array(ViewVersionSchema),
  'version-log': z.array(ViewHistoryEntrySchema),
});

export const VIEW_METADATA_KEY_ORDER = Object.keys(ViewMetadataShape.shape);

export const ViewMetadataSchema = ViewMetadataShape.superRefine((m, ctx) => {
  const issue = (message: string) => ctx.addIssue({ code: 'custom', message });
  const schemaIds = new Set<number>();
  for (const s of m.schemas) {
    const id = s['schema-id'];
    if (id === undefined) issue('every view schema needs a schema-id');
    else if (schemaIds.has(id)) issue(`duplicate schema-id ${id}`);
    else schemaIds.add(id);
  }
  const versionIds = new Set<number>();
  for (const v of m.versions) {
    if (versionIds.has(v['version-id'])) issue(`duplicate version-id ${v['version-id']}`);
    versionIds.add(v['version-id']);
    if (!schemaIds.has(v['schema-id'])) issue(`version ${v['version-id']} has unknown schema-id ${v['schema-id']}`);
  }
  if (m.versions.length === 0) issue('versions must not be empty');
  else if (!versionIds.has(m['current-version-id'])) {
    issue(`current-version-id ${m['current-version-id']} is not in versions`);
  }
});
export type ViewMetadata = z.output<typeof ViewMetadataSchema>;

// ---------------------------------------------------------------- ViewUpdate (REST)

const update = <A extends string, S extends z.core.$ZodLooseShape>(action: A, shape: S) =>
  z.looseObject({ action: z.literal(action), ...shape });

export const ViewUpdateSchema = z.discriminatedUnion('action', [
  update('assign-uuid', { uuid: z.string() }),
  update('upgrade-format-version', { 'format-version': z.number().int() }),
  update('add-schema', { schema: SchemaSchema, 'last-column-id': zInt.optional() }),
  update('set-location', { location: z.string() }),
  update('set-properties', { updates: zStringMap }),
  update('remove-properties', { removals: z.array(z.string()) }),
  update('add-view-version', { 'view-version': ViewVersionSchema }),
  update('set-current-view-version', { 'view-version-id': zInt }),
]);
export type ViewUpdate = z.output<typeof ViewUpdateSchema>;
export type ViewUpdateAction = ViewUpdate['action'];
export type ViewUpdateOf<A extends ViewUpdateAction> = Extract<ViewUpdate, { action: A }>;

// ---------------------------------------------------------------- ViewRequirement (REST)

export const ViewRequirementSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('assert-view-uuid'), uuid: z.string() }),
]);
export type ViewRequirement = z.output<typeof ViewRequirementSchema>;

// ---------------------------------------------------------------- parse / serialise

/** Parses view metadata JSON text (lossless for 64-bit values) and validates it. */
export function parseViewMetadata(jsonText: string): ViewMetadata {
  return toViewMetadata(parseModelJson(jsonText, 'view metadata'));
}

/** Validates an already-parsed JSON value (e.g. from `parseJson`) as view metadata. */
export function toViewMetadata(value: unknown): ViewMetadata {
  return validateModel(ViewMetadataSchema, value, 'view metadata');
}

/** Writes view metadata as compact JSON (validated first; known keys in writer order). */
export function serializeViewMetadata(meta: ViewMetadata): string {
  return stringifyJson(validateModel(ViewMetadataSchema, meta, 'view metadata'));
}

/** Validates the `updates` of a CommitViewRequest (parsed with `parseJson`). */
export function parseViewUpdates(value: unknown): ViewUpdate[] {
  return validateModel(z.array(ViewUpdateSchema), value, 'view updates');
}

/** Validates the `requirements` of a CommitViewRequest (parsed with `parseJson`). */
export function parseViewRequirements(value: unknown): ViewRequirement[] {
  return validateModel(z.array(ViewRequirementSchema), value, 'view requirements');
}

/** Validates a REST ViewVersion (e.g. CreateViewRequest['view-version']). */
export function parseViewVersion(value: unknown): ViewVersion {
  return validateModel(ViewVersionSchema, value, 'view version');
}

// A CreateViewRequest, its schema held to the stored model (every id present) as for tables.
const CreateViewRequestSchema = z.looseObject({
  name: z.string().min(1),
  location: z.string().nullish(),
  schema: SchemaSchema,
  'view-version': ViewVersionSchema,
  properties: zStringMap.optional(),
});
export type CreateViewRequest = z.output<typeof CreateViewRequestSchema>;

/** Validates a CreateViewRequest (parsed with `parseJson`). */
export function parseCreateViewRequest(value: unknown): CreateViewRequest {
  return validateModel(CreateViewRequestSchema, value, 'create view request');
}
