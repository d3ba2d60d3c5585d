// Type helpers the file writers need on top of the metadata model. The schema and
// partition-spec shapes themselves are ../metadata's, so a schema or spec taken from
// parsed table metadata can be handed to the writers as it is.
import { partitionFieldId } from '../metadata/helpers.js';
import type { PartitionField, PartitionSpec, StructType } from '../metadata/model.js';
import { indexById } from '../metadata/schema.js';
import { parsePrimitiveType, type ParsedPrimitive } from '../metadata/types.js';

/**
 * The writers cannot skip a column they do not understand, so unlike the metadata
 * model (which only validates) they refuse an unknown type outright. Callers may
 * rely on what the parser always sets: decimal's precision and scale, fixed's length.
 */
export function requirePrimitive(type: string): ParsedPrimitive {
  // Called for every value written: a table has few distinct type strings, each parsed once.
  let p = parsedTypes.get(type);
  if (p === undefined) {
    const parsed = parsePrimitiveType(type);
    if (!parsed) throw new Error(`unsupported Iceberg type: ${type}`);
    p = Object.freeze(parsed);
    if (parsedTypes.size < 1024) parsedTypes.set(type, p);
  }
  return p;
}

const parsedTypes = new Map<string, ParsedPrimitive>();

/** Smallest byte count whose two's complement range holds every unscaled value of precision P. */
export function decimalRequiredBytes(precision: number): number {
  const limit = 10n ** BigInt(precision);
  for (let n = 1; ; n++) if (2n ** BigInt(8 * n - 1) >= limit) return n;
}

/** A v1 spec may omit its id; the only spec such a table can have is spec 0. */
export function partitionSpecId(spec: PartitionSpec): number {
  return spec['spec-id'] ?? 0;
}

/**
 * Result type of a partition transform (spec "Partition Transforms"). Unknown
 * transforms are typed as string, as the reference implementation does, so a
 * manifest using one can still be read.
 */
export function partitionResultType(field: PartitionField, schema: StructType): string {
  const t = field.transform.trim();
  if (/^bucket\[\d+\]$/.test(t) || t === 'year' || t === 'month' || t === 'hour') return 'int';
  if (t === 'day') return 'date';
  const sourceId = field['source-id'] ?? field['source-ids']?.[0];
  const source = sourceId === undefined ? undefined : indexById(schema).get(sourceId);
  if (t === 'identity' || /^truncate\[\d+\]$/.test(t) || t === 'void') {
    if (source && typeof source.type === 'string') return source.type;
    if (t === 'void') return 'int'; // source dropped from the schema: void may be typed int
    throw new Error(`partition field ${field.name}: source field ${sourceId} not found in schema`);
  }
  return 'string';
}

/** The partition tuple type of a spec: one optional field per partition field, ids from the spec. */
export function partitionType(spec: PartitionSpec, schema: StructType): StructType {
  return {
    type: 'struct',
    fields: spec.fields.map((f, i) => ({
      id: partitionFieldId(f, i),
      name: f.name,
      required: false,
      type: partitionResultType(f, schema),
    })),
  };
}
