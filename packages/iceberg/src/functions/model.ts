import { z } from 'zod';
import { zInt, zLong } from '../metadata/model';

// Iceberg UDF metadata (the "Portable UDF metadata format" the REST catalog's
// loadFunction answers): a function's overloaded definitions, each with its
// versions of SQL representations, and the log of which versions were
// current when. Checked as the document's FunctionMetadata schema says, and
// for what the schema cannot say: definition ids and specific names unique,
// each current version among its definition's versions, the log naming only
// definitions and versions that exist.

const TYPE_TEXT = /^[^\s"']+$/;

export type FunctionDataType = string | { type: 'list'; element: FunctionDataType } | { type: 'map'; key: FunctionDataType; value: FunctionDataType }
  | { type: 'struct'; fields: Array<{ name: string; type: FunctionDataType }> };

const FunctionDataTypeSchema: z.ZodType<FunctionDataType> = z.lazy(() => z.union([
  z.string().regex(TYPE_TEXT, { error: 'a type string has no spaces or quotes' }),
  z.looseObject({ type: z.literal('list'), element: FunctionDataTypeSchema }),
  z.looseObject({ type: z.literal('map'), key: FunctionDataTypeSchema, value: FunctionDataTypeSchema }),
  z.looseObject({ type: z.literal('struct'), fields: z.array(z.looseObject({ name: z.string().min(1), type: FunctionDataTypeSchema })) }),
])) as z.ZodType<FunctionDataType>;

const VersionSchema = z.looseObject({
  'version-id': zInt,
  representations: z.array(z.looseObject({ type: z.literal('sql'), dialect: z.string().min(1), sql: z.string().min(1) })).min(1),
  deterministic: z.boolean().optional(),
  'on-null-input': z.enum(['return-null', 'call']).optional(),
  'timestamp-ms': zLong,
});

const DefinitionSchema = z.looseObject({
  'definition-id': z.string().min(1),
  'specific-name': z.string().min(1).optional(),
  parameters: z.array(z.looseObject({ type: FunctionDataTypeSchema, name: z.string().min(1), doc: z.string().optional() })),
  'return-type': FunctionDataTypeSchema,
  'return-nullable': z.boolean().optional(),
  versions: z.array(VersionSchema).min(1),
  'current-version-id': zInt,
  'function-type': z.enum(['udf', 'udtf']),
  doc: z.string().optional(),
});

export const FunctionMetadataSchema = z.looseObject({
  'function-uuid': z.uuid(),
  'format-version': z.literal(1),
  definitions: z.array(DefinitionSchema),
  'definition-log': z.array(z.looseObject({
    'timestamp-ms': zLong,
    'definition-versions': z.array(z.looseObject({ 'definition-id': z.string().min(1), 'version-id': zInt })),
  })),
  location: z.string().optional(),
  properties: z.record(z.string(), z.string()).optional(),
  secure: z.boolean().optional(),
  doc: z.string().optional(),
});

export type FunctionMetadata = z.infer<typeof FunctionMetadataSchema>;

/** Why the metadata is not a function's, field by field; empty when it is. */
export function functionMetadataProblems(value: unknown): string[] {
  const parsed = FunctionMetadataSchema.safeParse(value);
  if (!parsed.success) return parsed.error.issues.map((i) => `${i.path.join('.') || '(the body)'}: ${i.message}`);
  const m = parsed.data;
  const problems: string[] = [];
  const ids = new Set<string>();
  const names = new Set<string>();
  for (const d of m.definitions) {
    if (ids.has(d['definition-id'])) problems.push(`definitions: definition-id ${d['definition-id']} appears twice`);
    ids.add(d['definition-id']);
    const name = d['specific-name'];
    if (name !== undefined) {
      if (names.has(name)) problems.push(`definitions: specific-name ${name} appears twice`);
      names.add(name);
    }
    const versions = new Set(d.versions.map((v) => v['version-id']));
    if (versions.size !== d.versions.length) problems.push(`definitions: ${d['definition-id']} repeats a version-id`);
    if (!versions.has(d['current-version-id'])) problems.push(`definitions: ${d['definition-id']}'s current-version-id ${d['current-version-id']} is not among its versions`);
  }
  for (const entry of m['definition-log']) {
    for (const ref of entry['definition-versions']) {
      const d = m.definitions.find((x) => x['definition-id'] === ref['definition-id']);
      if (!d || !d.versions.some((v) => v['version-id'] === ref['version-id'])) {
        problems.push(`definition-log: ${ref['definition-id']} version ${ref['version-id']} is not among the definitions`);
      }
    }
  }
  return problems;
}
